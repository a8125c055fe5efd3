package main

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// union is a union of objects told apart by one constant member: ContentBlock by "type",
// SessionUpdate by "sessionUpdate", RequestPermissionOutcome by "outcome".
type union struct {
	name, doc string
	member    string    // the member that tells the variants apart
	common    string    // the type of the members every variant has (SessionConfigOption's id, name): "" for none
	variants  []variant // in the schema's order
}

// variant is one alternative of a union.
type variant struct {
	kind string // the member's value; "" for the variant taken when the member is absent
	typ  string // its Go type; "" when it has no members but the one that names it
}

// types returns the types of the union's variants and of its common members, each once.
func (u *union) types() []string {
	out := u.variantTypes()
	if u.common != "" {
		out = append(out, u.common)
	}
	return out
}

// variantTypes returns the types of the union's variants, each once, in the schema's order.
func (u *union) variantTypes() []string {
	var out []string
	for _, v := range u.variants {
		if v.typ != "" && !slices.Contains(out, v.typ) {
			out = append(out, v.typ)
		}
	}
	return out
}

// kinds returns the member's values that decode into typ.
func (u *union) kinds(typ string) []string {
	var out []string
	for _, v := range u.variants {
		if v.typ == typ {
			out = append(out, v.kind)
		}
	}
	return out
}

// asUnion returns def as a union told apart by a member, or nil when it is not one. A variant whose
// members are given inline (not by reference) becomes a definition of its own, named after the union
// and its kind; so do the members every variant has.
func (g *gen) asUnion(name string, def schema) *union {
	alts, _ := def["oneOf"].([]any)
	if alts == nil {
		alts, _ = def["anyOf"].([]any)
	}
	if len(alts) == 0 {
		return nil
	}
	u := &union{name: name}
	u.doc, _ = def["description"].(string)
	newDefs := schema{}
	defaults := 0
	for _, a := range alts {
		m, ok := a.(schema)
		if !ok || m["const"] != nil || (m["type"] != nil && m["type"] != "object") {
			return nil
		}
		props, _ := m["properties"].(schema)
		var v variant
		inline := schema{}
		for p, ps := range props {
			if c, ok := ps.(schema)["const"].(string); ok {
				if u.member != "" && u.member != p || v.kind != "" {
					return nil
				}
				u.member, v.kind = p, c
				continue
			}
			inline[p] = ps
		}
		all, _ := m["allOf"].([]any)
		switch {
		case len(all) == 1 && len(inline) == 0:
			ref, _ := all[0].(schema)["$ref"].(string)
			if ref == "" {
				return nil
			}
			v.typ = strings.TrimPrefix(ref, "#/definitions/")
		case len(all) == 0 && len(inline) > 0:
			title, _ := m["title"].(string)
			v.typ = name + goName(v.kind+title)
			newDefs[v.typ] = schema{"type": "object", "properties": inline, "required": required(m, u.member)}
		case len(all) == 0:
			if v.kind == "" {
				continue // "any other object": kept as raw JSON, as any kind this package does not know
			}
		default:
			return nil
		}
		if v.kind == "" {
			defaults++
		}
		u.variants = append(u.variants, v)
	}
	if u.member == "" || defaults > 1 {
		return nil
	}
	if props, _ := def["properties"].(schema); len(props) > 0 {
		u.common = name + "Common"
		newDefs[u.common] = schema{"type": "object", "properties": props, "required": required(def, "")}
	}
	maps.Copy(g.defs, newDefs)
	return u
}

// required returns s's required members but one.
func required(s schema, but string) []any {
	var out []any
	req, _ := s["required"].([]any)
	for _, r := range req {
		if r != but {
			out = append(out, r)
		}
	}
	return out
}

// writeUnions writes the Go type of each kept union and its methods, which decode leniently with
// the helpers of acp/union.go, and each alias.
func (g *gen) writeUnions(w *bytes.Buffer, kept map[string]any) {
	for _, name := range slices.Sorted(maps.Keys(kept)) {
		if u := g.unions[name]; u != nil {
			u.write(w)
		}
		if target, ok := g.aliases[name]; ok {
			def, _ := g.defs[name].(schema)
			if doc, _ := def["description"].(string); doc != "" {
				comment(w, "", reflow(doc))
			}
			fmt.Fprintf(w, "type %s = %s\n\n", goType(name), goType(target))
		}
	}
}

func (u *union) write(w *bytes.Buffer) {
	name := goType(u.name)
	var kinds []string
	for _, v := range u.variants {
		if v.kind != "" {
			kinds = append(kinds, fmt.Sprintf("%q", v.kind))
		}
	}
	if u.doc != "" {
		comment(w, "", reflow(u.doc))
		w.WriteString("//\n")
	}
	comment(w, "", wrap(fmt.Sprintf("%s is a union told apart by its member %q: %s. Kind says which variant "+
		"it is, and the field of that variant is set (a variant with no members but %q has none). A kind "+
		"this package does not know leaves every variant nil and keeps the value in Raw.",
		name, u.member, strings.Join(kinds, ", "), u.member)))
	fmt.Fprintf(w, "type %s struct {\n", name)
	if u.common != "" {
		fmt.Fprintf(w, "\t%s\n\n", goType(u.common))
	}
	fmt.Fprintf(w, "\t// Kind is the member %q.\n\tKind string\n\n", u.member)
	for _, t := range u.variantTypes() {
		kinds := u.kinds(t)
		if kinds[0] == "" {
			fmt.Fprintf(w, "\t// %s is the variant taken when %q is absent.\n", goType(t), u.member)
		} else {
			fmt.Fprintf(w, "\t// %s is the variant of kind %s.\n", goType(t), strings.Join(quoted(kinds), ", "))
		}
		fmt.Fprintf(w, "\t%s *%s\n", goType(t), goType(t))
	}
	w.WriteString("\n\t// Raw is the value as received, when its kind is not one this package knows.\n\tRaw json.RawMessage\n}\n\n")

	w.WriteString("// UnmarshalJSON decodes the variant that Kind names. It never fails: a member of the wrong type is\n" +
		"// left zero, and a kind this package does not know (or a value that is not an object) is kept in\n" +
		"// Raw; null leaves u as it was.\n")
	fmt.Fprintf(w, "func (u *%s) UnmarshalJSON(data []byte) error {\n\tif isNull(data) {\n\t\treturn nil\n\t}\n", name)
	fmt.Fprintf(w, "\tkind, object := unionKind(data, %q)\n\t*u = %s{Kind: kind}\n", u.member, name)
	w.WriteString("\tif !object {\n\t\tu.Raw = append(json.RawMessage(nil), data...)\n\t\treturn nil\n\t}\n")
	if u.common != "" {
		fmt.Fprintf(w, "\tdecodeLenient(data, &u.%s)\n", goType(u.common))
	}
	w.WriteString("\tswitch u.Kind {\n")
	for _, t := range u.variantTypes() {
		fmt.Fprintf(w, "\tcase %s:\n\t\tu.%s = new(%s)\n\t\tdecodeLenient(data, u.%s)\n",
			strings.Join(quoted(u.kinds(t)), ", "), goType(t), goType(t), goType(t))
	}
	for _, v := range u.variants {
		if v.typ == "" {
			fmt.Fprintf(w, "\tcase %q:\n", v.kind)
		}
	}
	w.WriteString("\tdefault:\n\t\tu.Raw = append(json.RawMessage(nil), data...)\n\t}\n\treturn nil\n}\n\n")

	common := ""
	if u.common != "" {
		common = ", u." + goType(u.common)
	}
	w.WriteString("// MarshalJSON encodes the variant that is set, with Kind (or, when Kind is empty, the variant's one\n" +
		"// kind); with no variant set, it encodes Raw.\n")
	fmt.Fprintf(w, "func (u %s) MarshalJSON() ([]byte, error) {\n\tswitch {\n", name)
	for _, t := range u.variantTypes() {
		fmt.Fprintf(w, "\tcase u.%s != nil:\n", goType(t))
		kinds := u.kinds(t)
		switch {
		case kinds[0] == "":
			fmt.Fprintf(w, "\t\treturn marshalDefault(%q%s, u.%s)\n", name, common, goType(t))
			continue
		case len(kinds) == 1:
			fmt.Fprintf(w, "\t\treturn marshalUnion(%q, %q, kindOr(u.Kind, %q)%s, u.%s)\n", name, u.member, kinds[0], common, goType(t))
		default:
			fmt.Fprintf(w, "\t\treturn marshalUnion(%q, %q, u.Kind%s, u.%s)\n", name, u.member, common, goType(t))
		}
	}
	for _, v := range u.variants {
		if v.typ == "" {
			fmt.Fprintf(w, "\tcase u.Kind == %q:\n\t\treturn marshalUnion(%q, %q, u.Kind%s)\n", v.kind, name, u.member, common)
		}
	}
	fmt.Fprintf(w, "\t}\n\treturn marshalRaw(%q, u.Raw)\n}\n\n", name)

	fmt.Fprintf(w, "// The kinds of %s.\nconst (\n", name)
	for _, v := range u.variants {
		if v.kind != "" {
			fmt.Fprintf(w, "\t%sKind%s = %q\n", name, goName(v.kind), v.kind)
		}
	}
	w.WriteString(")\n\n")
}

// writeEnums writes the values of each enum the kept definitions use, and of ErrorCode.
func (g *gen) writeEnums(w *bytes.Buffer) {
	g.used["ErrorCode"] = true
	for _, name := range slices.Sorted(maps.Keys(g.used)) {
		e := g.enums[name]
		def, _ := g.defs[name].(schema)
		if doc, _ := def["description"].(string); doc != "" {
			comment(w, "", reflow(doc))
			w.WriteString("//\n")
		}
		typ := "string"
		if e.integer {
			typ = "int64"
		}
		fmt.Fprintf(w, "// The values of %s, a plain %s in the types above.\nconst (\n", goType(name), typ)
		for _, v := range e.values {
			if e.integer {
				fmt.Fprintf(w, "\t%s%s = %v\n", goType(name), v.name, v.value)
			} else {
				fmt.Fprintf(w, "\t%s%s = %q\n", goType(name), v.name, v.value)
			}
		}
		w.WriteString(")\n\n")
	}
}

// writeMethods writes a constant per method the schema names (x-method), by the side that serves it.
func writeMethods(w *bytes.Buffer, defs schema) {
	sides := map[string]map[string]bool{}
	for _, def := range defs {
		d, _ := def.(schema)
		method, _ := d["x-method"].(string)
		side, _ := d["x-side"].(string)
		if method == "" {
			continue
		}
		if sides[side] == nil {
			sides[side] = map[string]bool{}
		}
		sides[side][method] = true
	}
	for _, side := range []string{"agent", "client", "protocol"} {
		switch side {
		case "agent":
			w.WriteString("// The methods of the agent: the client calls them (or notifies, session/cancel).\n")
		case "client":
			w.WriteString("// The methods of the client: the agent calls them (or notifies, session/update).\n")
		case "protocol":
			w.WriteString("// The methods of the protocol itself.\n")
		}
		w.WriteString("const (\n")
		for _, m := range slices.Sorted(maps.Keys(sides[side])) {
			fmt.Fprintf(w, "\tMethod%s = %q\n", goName(m), m)
		}
		w.WriteString(")\n\n")
	}
}

// wrap breaks text into lines of at most 96 columns.
func wrap(text string) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		switch {
		case n == 0:
		case n+1+len(word) > 96:
			b.WriteString("\n")
			n = 0
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// comment writes text as Go comment lines, each paragraph's lines at most 96 columns.
func comment(w *bytes.Buffer, indent, text string) {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" {
			fmt.Fprintf(w, "%s//\n", indent)
			continue
		}
		for l := range strings.SplitSeq(wrap(line), "\n") {
			fmt.Fprintf(w, "%s// %s\n", indent, l)
		}
	}
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
