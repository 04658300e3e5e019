package shariah

import (
	"reflect"
	"testing"
)

// A served type's shape enters the variant of its stored bodies: a field added, renamed, retagged or
// retyped (here or in a nested type) makes the bodies stored before another variant, so they are encoded
// again instead of served in the old shape.
func TestShapeHashFollowsTheEncodedShape(t *testing.T) {
	t.Parallel()
	// Unnamed types: only the shape (fields, tags, types) can tell them apart, not a type's name.
	var (
		base = reflect.TypeOf(struct {
			X  string `json:"x"`
			In []struct {
				A string `json:"a"`
			} `json:"in"`
		}{})
		retagged = reflect.TypeOf(struct {
			X  string `json:"y"`
			In []struct {
				A string `json:"a"`
			} `json:"in"`
		}{})
		added = reflect.TypeOf(struct {
			X  string `json:"x"`
			In []struct {
				A string `json:"a"`
			} `json:"in"`
			Z *bool `json:"z,omitempty"`
		}{})
		nested = reflect.TypeOf(struct {
			X  string `json:"x"`
			In []struct {
				A int `json:"a"`
			} `json:"in"`
		}{})
	)
	type self struct {
		Next *self `json:"next"`
	}
	h := ShapeHash(base)
	if h != ShapeHash(base) {
		t.Fatal("not deterministic")
	}
	for name, typ := range map[string]reflect.Type{"retagged": retagged, "added": added, "nested retyped": nested} {
		if ShapeHash(typ) == h {
			t.Errorf("%s: same shape hash", name)
		}
	}
	_ = ShapeHash(reflect.TypeOf(self{})) // a recursive type ends
}
