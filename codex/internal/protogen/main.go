// Command protogen writes codex/protocol_gen.go: the Go types of the codex app-server protocol that
// package codex uses, generated from the JSON schema the pinned codex prints
// (codex/schema/codex_app_server_protocol.schemas.json, see `make generate`) by go-jsonschema, the
// generator pinned by go.mod's tool directive.
//
// Before handing the schema to the generator it takes what this client uses and makes it fit Go:
//   - the v2 definitions join the others in one namespace;
//   - the types below (Roots) and what they refer to are kept, nothing else;
//   - "X or null" becomes X, and a property codex may leave out becomes a plain value (omitted when
//     zero) rather than a pointer: decoding stays lenient, as codex's output is;
//   - a string type (an enum, a path) becomes a plain string, and a 64-bit integer an int64;
//   - the unions package codex types by hand (Handwritten) are left to it, and any other union is
//     kept as raw JSON.
//
// It writes protocol_gen.go and, past gensplit.MaxLines lines, protocol_gen_2.go and on.
//
// Usage: go run ./codex/internal/protogen [-schema FILE] [-out FILE]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/internal/gensplit"
	"github.com/hermes-lsp/hermes-lsp/internal/schemafit"
)

// Roots are the schema's types that package codex uses: the requests it sends and their answers,
// the notifications it decodes (notifications of one shape share one type: item/started's for
// item/completed, the agent message delta's for every delta), the server requests it answers.
var Roots = []string{
	"InitializeParams", "InitializeResponse",
	"ThreadStartParams", "ThreadStartResponse", "ThreadResumeParams", "ThreadResumeResponse",
	"TurnStartParams", "TurnStartResponse", "TurnSteerParams", "TurnSteerResponse",
	"TurnInterruptParams", "ThreadCompactStartParams", "ThreadRevertParams",
	"TurnStartedNotification", "TurnCompletedNotification", "ItemStartedNotification",
	"AgentMessageDeltaNotification", "TurnDiffUpdatedNotification", "TurnPlanUpdatedNotification",
	"ThreadTokenUsageUpdatedNotification", "ErrorNotification", "ServerRequestResolvedNotification",
	"ThreadStatusChangedNotification", "ThreadStartedNotification", "ContextCompactedNotification",
	"CommandExecutionRequestApprovalParams", "FileChangeRequestApprovalParams",
	"PermissionsRequestApprovalParams", "PermissionsRequestApprovalResponse",
	"ToolRequestUserInputParams", "ToolRequestUserInputResponse",
	"FileUpdateChange",
	"ThreadListParams", "ThreadListResponse", "ThreadTurnsListParams", "ThreadTurnsListResponse", "ThreadSetNameParams", "ModelListParams", "ModelListResponse",
	"AccountRateLimitsUpdatedNotification", "GetAccountRateLimitsResponse",
	"ReviewStartParams", "ReviewStartResponse",
	"GetAccountParams", "GetAccountResponse", "LoginAccountParams", "LoginAccountResponse",
	"AccountLoginCompletedNotification",
}

// Handwritten are unions package codex types by hand (protocol.go), by schema name: the generated
// types use these Go types for them.
var Handwritten = map[string]string{
	"ThreadItem":      "Item",
	"UserInput":       "UserInput",
	"CodexErrorInfo":  "CodexErrorInfo",
	"AskForApproval":  "AskForApproval",
	"ThreadStatus":    "ThreadStatus",
	"PatchChangeKind": "PatchChangeKind",
}

type schema = map[string]any

func main() {
	in := flag.String("schema", "codex/schema/codex_app_server_protocol.schemas.json", "the schema bundle codex generated")
	out := flag.String("out", "codex/protocol_gen.go", "the Go file to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var bundle schema
	if err := json.Unmarshal(data, &bundle); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	defs, err := flatten(bundle)
	if err != nil {
		return err
	}
	for name, gotype := range Handwritten {
		defs[name] = schema{"goJSONSchema": schema{"type": gotype}}
	}
	strs := stringDefs(defs)
	for name, def := range defs {
		defs[name] = fit(inlineStrings(def, strs))
	}
	kept := map[string]any{}
	for _, root := range Roots {
		if err := keep(defs, root, kept); err != nil {
			return err
		}
	}
	props := schema{}
	for _, root := range Roots {
		props[root] = schema{"$ref": "#/definitions/" + root}
	}
	sub := schema{"$schema": bundle["$schema"], "$id": "codex", "type": "object", "definitions": kept, "properties": props}

	dir, err := os.MkdirTemp("", "protogen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	subFile := filepath.Join(dir, "codex.json")
	b, err := json.MarshalIndent(sub, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(subFile, b, 0o600); err != nil {
		return err
	}
	gen := filepath.Join(dir, "protocol_gen.go")
	cmd := exec.Command("go", "tool", "go-jsonschema", "--only-models", "-p", "codex", "--tags", "json",
		"--capitalization", "ID", "--capitalization", "URL", "--capitalization", "HTTP", "--capitalization", "OS",
		"--schema-root-type", "codex=protocolRoots", "-o", gen, subFile)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go-jsonschema: %w", err)
	}
	code, err := os.ReadFile(gen)
	if err != nil {
		return err
	}
	header := "// Code generated by codex/internal/protogen from codex/schema/codex_app_server_protocol.schemas.json; DO NOT EDIT.\n\n"
	code = selfDefined.ReplaceAllFunc(stripHeader(code), func(m []byte) []byte {
		g := selfDefined.FindSubmatch(m)
		name, gotype := string(g[1]), string(g[2])
		switch {
		case Handwritten[name] != gotype:
			return m
		case name == gotype:
			return nil
		}
		// An alias, so that the hand-written type's methods (its lenient decoding) apply.
		return []byte("type " + name + " = " + gotype + "\n")
	})
	// A union kept as raw JSON must decode as raw JSON does: an alias, not a new type.
	code = rawDefined.ReplaceAll(code, []byte("type $1 = json.RawMessage"))
	_, err = gensplit.Write(out, "codex", header, []string{"encoding/json"}, code)
	return err
}

// selfDefined matches what the generator writes for a hand-written type: "type ThreadItem Item",
// made an alias, or "type UserInput UserInput" (the same name), dropped.
var selfDefined = regexp.MustCompile(`(?m)^type (\w+) (\w+)\n`)

// rawDefined matches a union definition the generator declared as raw JSON.
var rawDefined = regexp.MustCompile(`(?m)^type (\w+) json\.RawMessage$`)

// stripHeader drops the generator's own header comment, which names a temporary file.
func stripHeader(code []byte) []byte {
	s := string(code)
	if i := strings.Index(s, "package "); i > 0 {
		s = s[i:]
	}
	return []byte(s)
}

// flatten returns the bundle's definitions, v2's among them, with every reference to a v2
// definition made a reference to the flat one.
func flatten(bundle schema) (map[string]any, error) {
	all, ok := bundle["definitions"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the schema has no definitions")
	}
	defs := maps.Clone(all)
	v2, _ := defs["v2"].(map[string]any)
	delete(defs, "v2")
	for name, def := range v2 {
		defs[name] = def
	}
	b, err := json.Marshal(defs)
	if err != nil {
		return nil, err
	}
	b = []byte(strings.ReplaceAll(string(b), "#/definitions/v2/", "#/definitions/"))
	var flat map[string]any
	return flat, json.Unmarshal(b, &flat)
}

// keep adds name and every definition it refers to, to kept.
func keep(defs map[string]any, name string, kept map[string]any) error {
	if _, done := kept[name]; done {
		return nil
	}
	def, ok := defs[name]
	if !ok {
		return fmt.Errorf("the schema has no definition %s", name)
	}
	kept[name] = def
	var err error
	schemafit.Walk(def, func(ref string) {
		if err == nil {
			err = keep(defs, strings.TrimPrefix(ref, "#/definitions/"), kept)
		}
	})
	return err
}

// stringDefs names the definitions that are a plain string (an enum, a path): the host uses plain
// strings and its own constants for them.
func stringDefs(defs map[string]any) map[string]bool {
	out := map[string]bool{}
	for name, def := range defs {
		if s, ok := def.(schema); ok && s["type"] == "string" && s["goJSONSchema"] == nil {
			out[name] = true
		}
	}
	return out
}

// inlineStrings replaces every reference to a plain-string definition with a plain string.
func inlineStrings(v any, strs map[string]bool) any {
	switch x := v.(type) {
	case schema:
		if ref, ok := x["$ref"].(string); ok && strs[strings.TrimPrefix(ref, "#/definitions/")] {
			out := maps.Clone(x)
			delete(out, "$ref")
			out["type"] = "string"
			return out
		}
		out := schema{}
		for k, sub := range x {
			out[k] = inlineStrings(sub, strs)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, sub := range x {
			out[i] = inlineStrings(sub, strs)
		}
		return out
	}
	return v
}

// fit makes a definition fit Go, as the package comment says. It follows the schema's structure:
// "properties" is a map of schemas (a property may well be named "anyOf").
func fit(v any) any {
	s, ok := v.(schema)
	if !ok {
		return v
	}
	s = maps.Clone(s)
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := s[key].(schema); ok {
			s[key] = fit(sub)
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := s[key].([]any); ok {
			out := make([]any, len(list))
			for i, sub := range list {
				out[i] = fit(sub)
			}
			s[key] = out
		}
	}
	s = schemafit.DropNull(s)
	if s["type"] == "integer" && s["format"] == "int64" {
		s = schemafit.WithExt(s, "type", "int64") // codex's counters and times are 64-bit
	}
	if _, union := s["anyOf"]; union {
		return rawJSON(s)
	}
	if _, union := s["oneOf"]; union {
		return rawJSON(s)
	}
	props, ok := s["properties"].(schema)
	if !ok {
		return s
	}
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			required[fmt.Sprint(r)] = true
		}
	}
	fitted := schema{}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, ok := fit(props[name]).(schema)
		if !ok {
			fitted[name] = props[name]
			continue
		}
		if !required[name] {
			p = schemafit.WithExt(p, "pointer", false)
		}
		fitted[name] = p
	}
	s["properties"] = fitted
	return s
}

// rawJSON keeps a union as raw JSON, with its description.
func rawJSON(s schema) schema {
	out := schema{"goJSONSchema": schema{"type": "json.RawMessage", "imports": []any{"encoding/json"}}}
	if d, ok := s["description"]; ok {
		out["description"] = d
	}
	return out
}
