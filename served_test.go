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
	type inner struct {
		A string `json:"a"`
	}
	type innerRetyped struct {
		A int `json:"a"`
	}
	type base struct {
		X  string  `json:"x"`
		In []inner `json:"in"`
	}
	type retagged struct {
		X  string  `json:"y"`
		In []inner `json:"in"`
	}
	type added struct {
		X  string  `json:"x"`
		In []inner `json:"in"`
		Z  *bool   `json:"z,omitempty"`
	}
	type nested struct {
		X  string         `json:"x"`
		In []innerRetyped `json:"in"`
	}
	type self struct {
		Next *self `json:"next"`
	}
	h := shapeHash(reflect.TypeOf(base{}))
	if h != shapeHash(reflect.TypeOf(base{})) {
		t.Fatal("not deterministic")
	}
	for name, typ := range map[string]reflect.Type{"retagged": reflect.TypeOf(retagged{}), "added": reflect.TypeOf(added{}), "nested retyped": reflect.TypeOf(nested{})} {
		if shapeHash(typ) == h {
			t.Errorf("%s: same shape hash", name)
		}
	}
	_ = shapeHash(reflect.TypeOf(self{})) // a recursive type ends
	if ResultVariant == "" || NewQuoteBodies(nil).Variant() == NewQuoteBodies([]Disclaimer{{ID: "market_data", Text: "x"}}).Variant() {
		t.Fatal("variants")
	}
}
