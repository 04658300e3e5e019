package shariah

import (
	"testing"
)

func TestValidationCollectsEveryField(t *testing.T) {
	t.Parallel()
	var v Validation
	if v.Err() != nil {
		t.Fatal("empty validation is an error")
	}
	v.Add("a", "t1", "body", "x")
	v.Add("b", "t2", "query", "y")
	err := v.Err()
	e, ok := err.(*Error)
	if !ok || e.Code != EVALIDATION || len(e.Detail.(map[string]any)["errors"].([]FieldError)) != 2 || ErrorCode(err) != EVALIDATION {
		t.Fatalf("%#v", err)
	}
	if ErrorCode(nil) != "" || ErrorCode(errString("x")) != EINTERNAL {
		t.Fatal("ErrorCode")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
