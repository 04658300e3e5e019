// Package jsoncontract reads decoded JSON the way the service's external clients do: by field name and
// JSON type, never through the repository's Go types. The REST and MCP contract tests share it.
package jsoncontract

import (
	"strings"
	"testing"
)

// Type names a decoded JSON value's type: null, boolean, number, string, array or object.
func Type(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "?"
}

// Field checks that m has the field and that its JSON type is one of types, and returns its value.
func Field(tb testing.TB, where string, m map[string]any, name string, types ...string) any {
	tb.Helper()
	v, ok := m[name]
	if !ok {
		tb.Errorf("%s: no field %q", where, name)
		return nil
	}
	got := Type(v)
	for _, ty := range types {
		if got == ty {
			return v
		}
	}
	tb.Errorf("%s: %s is %s (%v), want %s", where, name, got, v, strings.Join(types, " or "))
	return v
}
