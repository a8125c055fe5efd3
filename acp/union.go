package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// This file is what the generated unions (protocol_gen*.go: ContentBlock, SessionUpdate, ...)
// decode and encode with. An agent's message is decoded leniently, as ACP's own SDKs do: a member
// of the wrong type is left zero and the rest is kept, and a variant this package does not know is
// kept as raw JSON, so that nothing an agent adds (or gets wrong) drops the whole update.

// decodeLenient decodes data into v, leaving zero what does not fit. encoding/json carries on past
// a value of the wrong type and reports the first at the end: that report is what is dropped. The
// only other error, malformed JSON, cannot happen here: the connection has parsed every message
// whole before any of it is decoded.
func decodeLenient(data []byte, v any) {
	_ = json.Unmarshal(data, v)
}

// decode decodes data into v as decodeLenient does, but for malformed JSON, which it returns.
func decode(data []byte, v any) error {
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(data, v); err != nil && !errors.As(err, &typeErr) {
		return err
	}
	return nil
}

// unionKind returns the string member of the JSON object data that tells a union's variants apart
// ("" when it has no such string member), and whether data is an object at all.
func unionKind(data []byte, member string) (kind string, object bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil || members == nil {
		return "", false
	}
	if json.Unmarshal(members[member], &kind) != nil {
		return "", true
	}
	return kind, true
}

// isNull reports whether data is JSON's null, which leaves a union as it was: encoding/json's
// convention for an Unmarshaler.
func isNull(data []byte) bool { return string(bytes.TrimSpace(data)) == "null" }

// kindOr returns kind, or def when kind is "".
func kindOr(kind, def string) string {
	if kind == "" {
		return def
	}
	return kind
}

// marshalUnion encodes a variant of the union named union: the members of each part (JSON
// objects, or nil pointers, which add nothing), and the member that names the variant's kind.
func marshalUnion(union, member, kind string, parts ...any) ([]byte, error) {
	if kind == "" {
		return nil, fmt.Errorf("encode %s: its Kind is not set", union)
	}
	return marshalMembers(union, member, kind, parts)
}

// marshalDefault encodes the variant of the union named union that is taken when the member that
// names the kind is absent: the members of each part, as marshalUnion does, without it.
func marshalDefault(union string, parts ...any) ([]byte, error) {
	return marshalMembers(union, "", "", parts)
}

func marshalMembers(union, member, kind string, parts []any) ([]byte, error) {
	members := map[string]json.RawMessage{}
	for _, part := range parts {
		b, err := json.Marshal(part)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", union, err)
		}
		if bytes.Equal(b, []byte("null")) {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("encode %s: a part is not an object: %s", union, b)
		}
		for k, v := range m {
			members[k] = v
		}
	}
	if kind != "" {
		b, err := json.Marshal(kind)
		if err != nil {
			return nil, err
		}
		members[member] = b
	}
	return json.Marshal(members)
}

// marshalRaw encodes a union with no variant set: the raw JSON it was decoded from, or an error
// for a union nobody filled in (sending null where the protocol wants an object helps nobody).
func marshalRaw(union string, raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("encode %s: no variant set", union)
	}
	return raw, nil
}
