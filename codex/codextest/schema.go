package codextest

// This file checks what a client sends codex against a codex release's schema: every field of a
// request's params, and of an answer to codex's own requests, must be one that release defines.
// Codex ignores fields it does not know, so a field the oldest supported release lacks would be
// dropped there without a word (as codex before 0.171.0 drops thread/list's includedThreadIds):
// the fake checks everything it is sent against that release's schema (Fake's cleanup).

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// SchemaBundle is the file of a release's schema that `codex app-server generate-json-schema` writes
// and codex/schema keeps.
const SchemaBundle = "codex_app_server_protocol.schemas.json"

// Schema is one codex release's app-server schema, as far as checking fields goes.
type Schema struct {
	// Version is the release the schema is codex's of.
	Version string
	defs    map[string]any
	// requests maps each client request's method to its params' definition; serverRequests each
	// server request's method to its params' definition (the answer's is named alike, ...Response).
	requests, serverRequests map[string]string
}

// MinSchemaPath is where the repository keeps the schema of the oldest supported release, relative
// to its root: codex/schema/<codex.MinVersion>/SchemaBundle.
func MinSchemaPath() string {
	return filepath.Join("codex", "schema", codex.MinVersion, SchemaBundle)
}

// MinSchema loads the oldest supported release's schema from the repository the test runs in, once
// per test binary.
var MinSchema = sync.OnceValues(func() (*Schema, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	return LoadSchema(filepath.Join(root, MinSchemaPath()), codex.MinVersion)
})

// repoRoot is the first folder at or above the working directory that holds a go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("codextest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// LoadSchema reads a schema bundle that codex generated for release version.
func LoadSchema(path, version string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var bundle struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(data, &bundle); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &Schema{Version: version, defs: bundle.Definitions, requests: map[string]string{}, serverRequests: map[string]string{}}
	if v2, ok := s.defs["v2"].(map[string]any); ok { // the v2 definitions join the others
		delete(s.defs, "v2")
		for name, def := range v2 {
			s.defs[name] = def
		}
	}
	for union, methods := range map[string]map[string]string{"ClientRequest": s.requests, "ServerRequest": s.serverRequests} {
		for _, alt := range list(obj(s.defs[union])["oneOf"]) {
			props := obj(obj(alt)["properties"])
			enum := list(obj(props["method"])["enum"])
			if len(enum) == 1 {
				method, _ := enum[0].(string)
				methods[method] = refName(obj(props["params"]))
			}
		}
	}
	if len(s.requests) == 0 {
		return nil, fmt.Errorf("%s: no client requests in the schema", path)
	}
	return s, nil
}

// CheckRequest returns what a client request's params hold that the release does not define: the
// method itself when the release has no such request, else the paths of unknown fields
// ("params.includedThreadIds").
func (s *Schema) CheckRequest(method string, params json.RawMessage) []string {
	def, ok := s.requests[method]
	if !ok {
		return []string{"the method itself"}
	}
	return s.check("params", def, params)
}

// CheckAnswer returns what the client's answer to a server request (serverMethod) holds that the
// release does not define. A server request the release does not make is not checked: it never
// sends it.
func (s *Schema) CheckAnswer(serverMethod string, result json.RawMessage) []string {
	def, ok := s.serverRequests[serverMethod]
	if !ok {
		return nil
	}
	return s.check("result", strings.TrimSuffix(def, "Params")+"Response", result)
}

// check walks a value (root names it in the paths returned) against definition def.
func (s *Schema) check(root, def string, raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []string{root + ": not JSON"}
	}
	var unknown []string
	s.walk(root, v, []any{map[string]any{"$ref": "#/definitions/" + def}}, &unknown)
	return unknown
}

// walk adds to unknown the paths of the fields of v (and of the values inside it) that none of the
// schemas it may match defines.
func (s *Schema) walk(path string, v any, schemas []any, unknown *[]string) {
	var alts []map[string]any
	for _, sch := range schemas {
		alts = s.expand(sch, alts, 0)
	}
	for _, alt := range alts {
		if unconstrained(alt) {
			return // any value (an elicitation's content, free-form metadata)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		alts = discriminated(alts, v)
		for _, key := range sortedKeys(v) {
			var sub []any
			free := false
			for _, alt := range alts {
				if p, ok := obj(alt["properties"])[key]; ok {
					sub = append(sub, p)
					continue
				}
				switch ap := alt["additionalProperties"].(type) {
				case map[string]any: // a map: its keys are free, its values have a schema
					sub = append(sub, ap)
				case bool:
					free = free || ap
				}
				if _, ok := alt["properties"]; !ok && alt["additionalProperties"] == nil && typeIs(alt, "object") {
					free = true // an object of any shape
				}
			}
			switch {
			case len(sub) > 0:
				s.walk(path+"."+key, v[key], sub, unknown)
			case !free:
				*unknown = append(*unknown, path+"."+key)
			}
		}
	case []any:
		var items []any
		for _, alt := range alts {
			if it, ok := alt["items"]; ok {
				items = append(items, it)
			}
		}
		if len(items) == 0 {
			return
		}
		for i, e := range v {
			s.walk(fmt.Sprintf("%s[%d]", path, i), e, items, unknown)
		}
	}
}

// unconstrained reports whether a schema allows any value: it says nothing of its type or shape
// (the JSON schema true, or one with a description only).
func unconstrained(m map[string]any) bool {
	for _, k := range []string{"type", "properties", "items", "additionalProperties", "enum", "const", "$ref", "anyOf", "oneOf", "allOf"} {
		if _, ok := m[k]; ok {
			return false
		}
	}
	return true
}

// expand resolves a schema's references and unions into the schemas a value may match, appended to
// out. A schema with properties of its own beside a union is each of the union's branches with those
// properties added (codex's image input: a type and a detail, and a url or a file id).
func (s *Schema) expand(sch any, out []map[string]any, depth int) []map[string]any {
	if b, ok := sch.(bool); ok && b {
		return append(out, map[string]any{}) // the schema true: any value
	}
	m := obj(sch)
	if m == nil || depth > 32 {
		return out
	}
	if _, ok := m["$ref"]; ok {
		return s.expand(s.defs[refName(m)], out, depth+1)
	}
	var branches []map[string]any
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		for _, alt := range list(m[k]) {
			branches = s.expand(alt, branches, depth+1)
		}
	}
	if len(branches) == 0 {
		return append(out, m)
	}
	own := obj(m["properties"])
	for _, b := range branches {
		if len(own) > 0 {
			merged := maps.Clone(b)
			props := maps.Clone(obj(b["properties"]))
			if props == nil {
				props = map[string]any{}
			}
			maps.Copy(props, own)
			merged["properties"] = props
			b = merged
		}
		out = append(out, b)
	}
	return out
}

// discriminated keeps the schemas whose fixed fields (an enum of one value, a const: a union's tag)
// agree with v; all of them when none does.
func discriminated(alts []map[string]any, v map[string]any) []map[string]any {
	var kept []map[string]any
	for _, alt := range alts {
		agree := true
		for key, p := range obj(alt["properties"]) {
			fixed, ok := obj(p)["const"]
			if enum := list(obj(p)["enum"]); len(enum) == 1 {
				fixed, ok = enum[0], true
			}
			if got, present := v[key]; ok && present && got != fixed {
				agree = false
				break
			}
		}
		if agree {
			kept = append(kept, alt)
		}
	}
	if len(kept) == 0 {
		return alts
	}
	return kept
}

// refName is the definition a {"$ref": "#/definitions/[v2/]Name"} names.
func refName(m map[string]any) string {
	ref, _ := m["$ref"].(string)
	return ref[strings.LastIndexByte(ref, '/')+1:]
}

func typeIs(m map[string]any, want string) bool {
	switch t := m["type"].(type) {
	case string:
		return t == want
	case []any:
		return slices.Contains(t, any(want))
	}
	return false
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
