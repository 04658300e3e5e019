package sukuk_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// fieldErrors is the field errors of a VALIDATION_ERROR (fails the test for any other error).
func fieldErrors(t *testing.T, err error) []shariah.FieldError {
	t.Helper()
	var e *shariah.Error
	if !errors.As(err, &e) || e.Code != shariah.EVALIDATION {
		t.Fatalf("want a VALIDATION_ERROR, got %v", err)
	}
	return e.Detail.(map[string]any)["errors"].([]shariah.FieldError)
}

// hasFieldError reports whether errs has one at loc (of type typ when typ is not empty).
func hasFieldError(errs []shariah.FieldError, typ string, loc ...any) bool {
	for _, e := range errs {
		if reflect.DeepEqual(e.Loc, loc) && (typ == "" || e.Type == typ) {
			return true
		}
	}
	return false
}

func decp(s string) *shariah.Number { n := shariah.NewNumber(dec(s)); return &n }

// wantDec fails unless got equals want numerically.
func wantDec(t *testing.T, what string, got shariah.Number, want string) {
	t.Helper()
	if !got.Decimal.Equal(dec(want)) {
		t.Errorf("%s = %s, want %s", what, got.String(), want)
	}
}
