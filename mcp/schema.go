package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	shariah "github.com/shariah-screen/shariah"
)

// A tool's input schema is derived from its argument struct, so the schema cannot disagree with the
// struct the arguments are decoded into. Each exported field is one property:
//
//	json:"name"             the property name (every field carries one)
//	jsonschema:"text"       the property's description
//	schema:"a,b=v,..."      constraints: required, and minimum, maximum, exclusiveMinimum, minLength,
//	                        maxLength, minItems, maxItems, default and enum (values separated by |)
//
// A default is also the value the field holds when the argument is absent (see setDefaults). Strings,
// booleans, integers, numbers (float and shariah.Number), slices, pointers and nested structs map to
// their JSON Schema types; an embedded struct's fields are the outer struct's. The top-level object
// refuses additional properties. Defaults belong on top-level fields.

var numberType = reflect.TypeFor[shariah.Number]()

// inputSchema is the JSON Schema of the argument struct t.
func inputSchema(t reflect.Type) json.RawMessage {
	s := objectSchema(t)
	s["additionalProperties"] = false
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", t, err))
	}
	return b
}

// objectSchema is the schema of a struct: its properties and required ones.
func objectSchema(t reflect.Type) map[string]any {
	props, required := map[string]any{}, []string{}
	var walk func(t reflect.Type, embedded bool)
	walk = func(t reflect.Type, embedded bool) {
		for _, f := range reflect.VisibleFields(t) {
			if len(f.Index) > 1 {
				continue
			}
			if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
				walk(f.Type, true)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if embedded && strings.Contains(f.Tag.Get("schema"), "default=") {
				panic(fmt.Sprintf("mcp: default on embedded field %s.%s (setDefaults sets top-level fields only)", t, f.Name))
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				panic(fmt.Sprintf("mcp: field %s.%s has no json name", t, f.Name))
			}
			p := typeSchema(f.Type)
			if d := f.Tag.Get("jsonschema"); d != "" {
				p["description"] = d
			}
			if constrain(p, f) {
				required = append(required, name)
			}
			props[name] = p
		}
	}
	walk(t, false)
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// typeSchema is the schema of a Go type.
func typeSchema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == numberType:
		return map[string]any{"type": "number"}
	case t.Kind() == reflect.String:
		return map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return map[string]any{"type": "number"}
	case t.Kind() == reflect.Slice:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case t.Kind() == reflect.Struct:
		return objectSchema(t)
	}
	panic(fmt.Sprintf("mcp: no schema for %s", t))
}

// constrain adds the field's schema tag to p and reports whether the field is required.
func constrain(p map[string]any, f reflect.StructField) (required bool) {
	tag := f.Tag.Get("schema")
	if tag == "" {
		return false
	}
	for _, opt := range strings.Split(tag, ",") {
		key, val, _ := strings.Cut(opt, "=")
		switch key {
		case "required":
			required = true
		case "enum":
			p["enum"] = strings.Split(val, "|")
		case "default":
			p["default"] = literal(f.Type, val)
		case "minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength", "minItems", "maxItems":
			p[key] = json.Number(val)
		default:
			panic(fmt.Sprintf("mcp: unknown schema option %q on %s", opt, f.Name))
		}
	}
	return required
}

// literal is a default's JSON value for a field of type t.
func literal(t reflect.Type, val string) json.RawMessage {
	if t.Kind() == reflect.String {
		return json.RawMessage(strconv.Quote(val))
	}
	return json.RawMessage(val)
}

// setDefaults gives every field of *dst that has a schema default its default value.
func setDefaults(dst any) {
	v := reflect.ValueOf(dst).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		if len(f.Index) > 1 {
			continue
		}
		for _, opt := range strings.Split(f.Tag.Get("schema"), ",") {
			if val, ok := strings.CutPrefix(opt, "default="); ok && f.IsExported() {
				dec := json.NewDecoder(bytes.NewReader(literal(f.Type, val)))
				if err := dec.Decode(v.FieldByIndex(f.Index).Addr().Interface()); err != nil {
					panic(fmt.Sprintf("mcp: default of %s: %v", f.Name, err))
				}
			}
		}
	}
}
