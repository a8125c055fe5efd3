package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/internal/schemafit"
)

// gen holds the schema's definitions and what protogen makes of them.
type gen struct {
	defs   schema            // the definitions, variants of unions made definitions of their own among them
	unions map[string]*union // the unions told apart by a member, by name
	enums  map[string]*enum  // the enums, by name
	strs   map[string]bool   // the definitions that are a plain string (SessionId), inlined
	used   map[string]bool   // the enums the kept definitions refer to
	// aliases are the kept definitions that are another's under a name of their own, by name.
	aliases map[string]string
}

// enum is a union of constants: its values, named.
type enum struct {
	integer bool
	values  []enumValue
}

type enumValue struct {
	name  string // the Go name's suffix: "EndTurn", "ParseError"
	value any    // string or float64, as JSON has it
}

func newGen(defs schema) *gen {
	g := &gen{defs: maps.Clone(defs), unions: map[string]*union{}, enums: map[string]*enum{}, strs: map[string]bool{}, used: map[string]bool{}, aliases: map[string]string{}}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		def, ok := defs[name].(schema)
		if !ok {
			continue
		}
		if e := asEnum(def); e != nil {
			g.enums[name] = e
			continue
		}
		if def["type"] == "string" {
			g.strs[name] = true
			continue
		}
		if u := g.asUnion(name, def); u != nil {
			g.unions[name] = u
		}
	}
	return g
}

// keep adds name and every definition it refers to, fitted, to kept; a union is written by
// writeUnions and an enum inlined, so they are kept as a name only.
func (g *gen) keep(name string, kept map[string]any) error {
	if _, done := kept[name]; done {
		return nil
	}
	raw, ok := g.defs[name].(schema)
	if !ok {
		return fmt.Errorf("the schema has no definition %s", name)
	}
	if g.enums[name] != nil {
		g.used[name] = true
		return nil
	}
	if u := g.unions[name]; u != nil {
		kept[name] = schema{"goJSONSchema": schema{"type": goType(name)}}
		for _, t := range u.types() {
			if err := g.keep(t, kept); err != nil {
				return err
			}
		}
		return nil
	}
	def := g.fit(raw)
	if ref, ok := def["$ref"].(string); ok {
		// A union of one alternative (AvailableCommandInput): another name for it.
		target := strings.TrimPrefix(ref, "#/definitions/")
		g.aliases[name] = target
		kept[name] = schema{"goJSONSchema": schema{"type": goType(name)}}
		return g.keep(target, kept)
	}
	kept[name] = def
	var err error
	schemafit.Walk(def, func(ref string) {
		if err == nil {
			err = g.keep(strings.TrimPrefix(ref, "#/definitions/"), kept)
		}
	})
	return err
}

// fit makes a definition (or a property's schema) fit Go, as the package comment says.
func (g *gen) fit(s schema) schema {
	s = schemafit.DropNull(maps.Clone(s))
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/definitions/")
		if e := g.enums[name]; e != nil {
			g.used[name] = true
			return plain(s, e.integer)
		}
		if g.strs[name] {
			return plain(s, false)
		}
		return s
	}
	if e := asEnum(s); e != nil {
		return plain(s, e.integer)
	}
	if _, union := s["anyOf"]; union {
		return raw(s)
	}
	if _, union := s["oneOf"]; union {
		return raw(s)
	}
	switch s["type"] {
	case nil:
		return raw(s) // a value of any type: rawInput, rawOutput
	case "integer":
		return schemafit.WithExt(s, "type", "int64")
	case "array":
		if items, ok := s["items"].(schema); ok {
			s["items"] = g.fit(items)
		}
		return s
	case "object":
	default:
		return s
	}
	props, _ := s["properties"].(schema)
	if len(props) == 0 {
		return raw(s) // an open object (_meta), or one whose presence is all it says
	}
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			required[fmt.Sprint(r)] = true
		}
	}
	fitted := schema{}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, ok := props[name].(schema)
		if !ok {
			fitted[name] = props[name]
			continue
		}
		nullable := g.nullableObject(p)
		p = g.fit(p)
		if name == "_meta" {
			p["description"] = "Meta is the member _meta: extension data, kept as received (ACP reserves it; implementations assume nothing of it)."
		}
		switch {
		case nullable:
			p = schemafit.WithExt(p, "pointer", true)
		case !required[name]:
			p = schemafit.WithExt(p, "pointer", false)
		}
		fitted[name] = p
	}
	s["properties"] = fitted
	return s
}

// nullableObject reports whether a property is "an object, or null": one whose presence means
// something, kept a pointer.
func (g *gen) nullableObject(p schema) bool {
	alts, _ := p["anyOf"].([]any)
	if len(alts) != 2 {
		return false
	}
	null := false
	object := false
	for _, a := range alts {
		m, _ := a.(schema)
		if m["type"] == "null" {
			null = true
			continue
		}
		ref, _ := m["$ref"].(string)
		name := strings.TrimPrefix(ref, "#/definitions/")
		def, _ := g.defs[name].(schema)
		object = def["type"] == "object" || g.unions[name] != nil
	}
	return null && object
}

// plain is a reference to an enum or a string type made the plain type, with its description.
func plain(s schema, integer bool) schema {
	out := schema{"type": "string"}
	if integer {
		out = schema{"type": "integer", "goJSONSchema": schema{"type": "int64"}}
	}
	if d, ok := s["description"]; ok {
		out["description"] = d
	}
	return out
}

// raw keeps a schema as raw JSON, with its description.
func raw(s schema) schema {
	out := schema{"goJSONSchema": schema{"type": "json.RawMessage", "imports": []any{"encoding/json"}}}
	if d, ok := s["description"]; ok {
		out["description"] = d
	}
	return out
}

// asEnum returns the values of a union of constants (with or without "any other value" of their
// type), or nil when s is not one.
func asEnum(s schema) *enum {
	alts, _ := s["oneOf"].([]any)
	if alts == nil {
		alts, _ = s["anyOf"].([]any)
	}
	if len(alts) == 0 {
		return nil
	}
	e := &enum{}
	for _, a := range alts {
		m, ok := a.(schema)
		if !ok {
			return nil
		}
		switch m["type"] {
		case "string":
		case "integer":
			e.integer = true
		default:
			return nil
		}
		c, ok := m["const"]
		if !ok {
			if props, _ := m["properties"].(schema); len(props) > 0 || m["$ref"] != nil || m["allOf"] != nil {
				return nil
			}
			continue // "any other value"
		}
		name := fmt.Sprint(c)
		if t, ok := m["title"].(string); ok && e.integer {
			name = t
		}
		e.values = append(e.values, enumValue{name: goName(name), value: c})
	}
	if len(e.values) == 0 {
		return nil
	}
	return e
}

// goType is the Go name go-jsonschema gives a definition, with main's capitalizations: McpServerHttp
// MCPServerHTTP, SessionId SessionID.
func goType(def string) string {
	var b strings.Builder
	for _, w := range defWord.FindAllString(def, -1) {
		b.WriteString(capitalize(w))
	}
	return b.String()
}

// defWord matches a word of a definition's name: an initial capital (or a run of them) and what
// follows in lower case, or digits.
var defWord = regexp.MustCompile(`[A-Z]+[a-z]*|[a-z]+|[0-9]+`)

// capitalize writes a word of a Go name: capitalized, or all in capitals when it is one of those
// main passes go-jsonschema.
func capitalize(w string) string {
	if up := strings.ToUpper(w); slices.Contains(capitalizations, up) {
		return up
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// capitalizations are the words written all in capitals in Go names.
var capitalizations = []string{"ID", "URL", "HTTP", "URI", "MCP", "SSE"}

// reflow joins the lines of each paragraph of a description: the schema breaks them at 80
// columns, and go-jsonschema breaks them again. A line that starts a list item stays a line.
func reflow(text string) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, line := range lines {
		switch {
		case i == 0:
		case line == "" || lines[i-1] == "" || listItem.MatchString(line):
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// listItem matches a line that starts a list item or is indented.
var listItem = regexp.MustCompile(`^(\s|[-*|] |[0-9]+\. )`)

// goName makes a value or a title an exported Go name's part: "end_turn" EndTurn, "date-time"
// DateTime, "Parse error" ParseError, "value_id" ValueID.
func goName(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		b.WriteString(capitalize(w))
	}
	return b.String()
}
