// Package schemafit is what the protocol generators (codex/internal/protogen, acp/internal/protogen)
// share to fit a JSON schema to go-jsonschema: schemas as maps, an "X or null" made X, the
// generator's extension set, every $ref found.
package schemafit

import "maps"

// Schema is a JSON schema as decoded into a map.
type Schema = map[string]any

// DropNull turns "X or null" into X: a union of one alternative and null, a type list with null,
// an allOf of one.
func DropNull(s Schema) Schema {
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, ok := s[key].([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, a := range alts {
			if m, ok := a.(Schema); ok && len(m) == 1 && m["type"] == "null" {
				continue
			}
			kept = append(kept, a)
		}
		if len(kept) == 1 {
			delete(s, key)
			s = Merge(s, kept[0].(Schema))
		}
	}
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		delete(s, "allOf")
		s = Merge(s, all[0].(Schema))
	}
	if types, ok := s["type"].([]any); ok {
		var kept []any
		for _, t := range types {
			if t != "null" {
				kept = append(kept, t)
			}
		}
		if len(kept) == 1 {
			s["type"] = kept[0]
		}
	}
	return s
}

// WithExt returns s with its goJSONSchema extension's key set to v.
func WithExt(s Schema, key string, v any) Schema {
	s = maps.Clone(s)
	ext, _ := s["goJSONSchema"].(Schema)
	ext = maps.Clone(ext)
	if ext == nil {
		ext = Schema{}
	}
	ext[key] = v
	s["goJSONSchema"] = ext
	return s
}

// Merge returns s with the members of with set over its own.
func Merge(s, with Schema) Schema {
	out := maps.Clone(s)
	for k, v := range with {
		out[k] = v
	}
	return out
}

// Walk calls f with every $ref under v.
func Walk(v any, f func(ref string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if ref, ok := sub.(string); ok && k == "$ref" {
				f(ref)
				continue
			}
			Walk(sub, f)
		}
	case []any:
		for _, sub := range x {
			Walk(sub, f)
		}
	}
}
