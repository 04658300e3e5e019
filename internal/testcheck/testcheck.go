// Package testcheck holds the small checks the domain packages' tests share: decimals from strings, a
// number's value, the field errors of a VALIDATION_ERROR, and waiting for a condition. Test support only.
package testcheck

import (
	"errors"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
)

// Dec is the decimal s (which must parse).
func Dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// Amt is a request amount.
func Amt(s string) shariah.Number { return shariah.NewNumber(Dec(s)) }

// DecP is a pointer to the number s.
func DecP(s string) *shariah.Number { n := shariah.NewNumber(Dec(s)); return &n }

// WantDec fails unless got equals want numerically.
func WantDec(t *testing.T, what string, got shariah.Number, want string) {
	t.Helper()
	if !got.Decimal.Equal(Dec(want)) {
		t.Errorf("%s = %s, want %s", what, got.String(), want)
	}
}

// FieldErrors returns the field errors of a VALIDATION_ERROR (failing on anything else).
func FieldErrors(t *testing.T, err error) []shariah.FieldError {
	t.Helper()
	var e *shariah.Error
	if !errors.As(err, &e) || e.Code != shariah.EVALIDATION {
		t.Fatalf("want a VALIDATION_ERROR, got %v", err)
	}
	return e.Detail.(map[string]any)["errors"].([]shariah.FieldError)
}

// HasFieldError reports whether errs has one at loc (of type typ when typ is not empty).
func HasFieldError(errs []shariah.FieldError, typ string, loc ...any) bool {
	for _, e := range errs {
		if reflect.DeepEqual(e.Loc, loc) && (typ == "" || e.Type == typ) {
			return true
		}
	}
	return false
}
