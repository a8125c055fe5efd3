package framing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	fastjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
)

// idPrefix starts the string IDs Read makes up. A string id from the peer that starts with it is
// itself replaced by a made-up ID, so every ID with the prefix that reaches the caller is the
// stream's own and Write cannot mistake a peer's id for one.
const idPrefix = "framing-id:"

// envelope is a message's members, decoded once: the stream checks them and builds the message from
// them as jsonrpc2 would decode the body. A member that is absent stays nil; one that is null holds
// "null". Like jsonrpc2's decoder, the JSON package matches the names ignoring case and keeps the
// last of duplicate members.
type envelope struct {
	Version json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// idKind sorts ids.
type idKind int

const (
	idNone    idKind = iota // absent or null
	idPlain                 // an int32 or a string jsonrpc2.ID holds as sent
	idMapped                // an integer or string jsonrpc2.ID cannot hold: replaced by a made-up ID
	idInvalid               // an object, array, boolean or non-integer number
)

// decode checks a body and returns its message, or nil when it answered or skipped the body.
func (s *stream) decode(body []byte) jsonrpc2.Message {
	var env envelope
	if err := fastjson.Unmarshal(body, &env); err != nil {
		var syntax *json.SyntaxError
		if !errors.As(err, &syntax) {
			s.log.Warn("framing: skipped a body that is not a JSON object", "err", err)
			return nil
		}
		id := scanID(body)
		if id == nil {
			s.log.Warn("framing: skipped a body that is not JSON", "err", err)
			return nil
		}
		s.log.Warn("framing: a body that is not JSON", "id", string(id), "err", err)
		s.replyError(id, codeParseError, "parse error: "+err.Error())
		return nil
	}
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) == 0 || b[0] != '{' {
		s.log.Warn("framing: skipped a body that is not a JSON object")
		return nil
	}

	kind := classifyID(env.ID)
	hasMethod := env.Method != nil && string(env.Method) != "null"
	if !hasMethod && (env.Result != nil || env.Error != nil) {
		// A response: never answered, and one with an id jsonrpc2 cannot hold answers none of the
		// caller's calls (they have int32 ids).
		if kind != idPlain {
			s.log.Warn("framing: skipped a response with an unusable id", "id", string(env.ID))
			return nil
		}
		msg, err := env.message("", nil)
		if err != nil {
			s.log.Warn("framing: skipped a bad response", "id", string(env.ID), "err", err)
			return nil
		}
		return msg
	}

	var id json.RawMessage // the id to answer with
	if kind == idPlain || kind == idMapped {
		id = env.ID
	}
	var method string
	switch {
	case kind == idInvalid:
		reason := fmt.Sprintf("id %.40s is not a string or an integer", env.ID)
		s.log.Warn("framing: an invalid request", "reason", reason)
		s.replyError(nil, codeInvalidRequest, "invalid request: "+reason)
		return nil
	case !hasMethod:
		s.invalid(id, "no method, result or error")
		return nil
	case fastjson.Unmarshal(env.Method, &method) != nil || method == "":
		s.invalid(id, fmt.Sprintf("method %.40s is not a non-empty string", env.Method))
		return nil
	}

	var made *jsonrpc2.ID
	if kind == idMapped {
		id, _ := s.makeID(env.ID)
		made = &id
	}
	msg, err := env.message(method, made)
	if err != nil {
		if made != nil {
			s.forgetID(*made)
		}
		s.invalid(id, err.Error())
		return nil
	}
	return msg
}

// message is the message env holds, as jsonrpc2 decodes its body (jsonrpc2.DecodeMessage, whose
// decoder would allocate a 32 KiB buffer for every message), with method, checked already, and with
// made, when not nil, as its id instead of the one the peer sent. A panic in a decoder is an error.
func (env *envelope) message(method string, made *jsonrpc2.ID) (msg jsonrpc2.Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, err = nil, fmt.Errorf("decoding the message: panic: %v", r)
		}
	}()
	if env.Version != nil {
		var v string
		if fastjson.Unmarshal(env.Version, &v) != nil || v != jsonrpc2.Version {
			return nil, fmt.Errorf("invalid RPC version %s", env.Version)
		}
	}
	id := made
	if id == nil && env.ID != nil && string(env.ID) != "null" {
		id = new(jsonrpc2.ID)
		if err := fastjson.Unmarshal(env.ID, id); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
	}
	switch {
	case method == "" && id == nil:
		return nil, jsonrpc2.ErrInvalidRequest
	case method == "":
		var e error
		if env.Error != nil && string(env.Error) != "null" {
			je := new(jsonrpc2.Error)
			if err := fastjson.Unmarshal(env.Error, je); err != nil {
				return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
			}
			e = je
		}
		return jsonrpc2.NewResponse(*id, env.Result, e)
	case id == nil:
		return jsonrpc2.NewNotification(method, env.Params)
	default:
		return jsonrpc2.NewCall(*id, method, env.Params)
	}
}

// invalid answers a bad request that has an id with -32600 Invalid Request; one without an id
// (id is nil) is only logged.
func (s *stream) invalid(id json.RawMessage, reason string) {
	s.log.Warn("framing: an invalid request", "id", string(id), "reason", reason)
	if id != nil {
		s.replyError(id, codeInvalidRequest, "invalid request: "+reason)
	}
}

// classifyID sorts an id as encoding/json found it.
func classifyID(raw json.RawMessage) idKind {
	switch {
	case raw == nil || string(raw) == "null":
		return idNone
	case raw[0] == '"':
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return idInvalid
		}
		if str == "" || strings.HasPrefix(str, idPrefix) {
			return idMapped // jsonrpc2 reads "" as the number 0
		}
		return idPlain
	case raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9':
		if bytes.ContainsAny(raw, ".eE") {
			return idInvalid
		}
		n, err := strconv.ParseInt(string(raw), 10, 32)
		if err != nil || strconv.FormatInt(n, 10) != string(raw) {
			return idMapped // beyond int32, or "-0"
		}
		return idPlain
	}
	return idInvalid
}

// makeID makes up an ID, and returns it and its name, for raw, the id the peer sent.
func (s *stream) makeID(raw json.RawMessage) (jsonrpc2.ID, string) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	s.seq++
	name := idPrefix + strconv.FormatUint(s.seq, 10)
	id := jsonrpc2.NewStringID(name)
	s.ids[id] = bytes.Clone(raw)
	return id, name
}

// lookupID returns the id the peer sent for an ID Read made up.
func (s *stream) lookupID(id jsonrpc2.ID) (json.RawMessage, bool) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	raw, ok := s.ids[id]
	return raw, ok
}

// forgetID drops a made-up ID.
func (s *stream) forgetID(id jsonrpc2.ID) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	delete(s.ids, id)
}

// replaceID returns the JSON object data with its id member (in any case, as jsonrpc2 reads it)
// set to id.
func replaceID(data []byte, id json.RawMessage) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, fmt.Errorf("replacing the id: %w", err)
	}
	for name := range members {
		if strings.EqualFold(name, "id") {
			delete(members, name)
		}
	}
	members["id"] = id
	out, err := json.Marshal(members)
	if err != nil {
		return nil, fmt.Errorf("replacing the id: %w", err)
	}
	return out, nil
}

// mustMarshal returns the JSON form of a string.
func mustMarshal(s string) json.RawMessage {
	data, _ := json.Marshal(s)
	return data
}

// scanID returns the id of a body that is not valid JSON, if one can be read: an "id" member with a
// string or number value among the members of the top-level object before the error. It returns nil
// otherwise.
func scanID(body []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	for {
		tok, err := dec.Token()
		if err != nil {
			return id
		}
		name, ok := tok.(string)
		if !ok {
			return id // the end of the object
		}
		tok, err = dec.Token()
		if err != nil {
			return id
		}
		if name == "id" {
			switch v := tok.(type) {
			case string:
				id = mustMarshal(v)
			case json.Number:
				id = json.RawMessage(v)
			default:
				id = nil
			}
		}
		if tok == json.Delim('{') || tok == json.Delim('[') {
			if skipValue(dec) != nil {
				return id
			}
		}
	}
}

// skipValue reads the tokens of an object or array whose opening delimiter has been read.
func skipValue(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
