package screening_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/redis/rueidis"
	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/internal/redistest"
	sredis "github.com/shariah-screen/shariah/redis"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// amt is a request amount.
func amt(s string) shariah.Number { return shariah.NewNumber(dec(s)) }

func decp(s string) *shariah.Number { n := shariah.NewNumber(dec(s)); return &n }

// wantDec fails unless got equals want numerically.
func wantDec(t *testing.T, what string, got shariah.Number, want string) {
	t.Helper()
	if !got.Decimal.Equal(dec(want)) {
		t.Errorf("%s = %s, want %s", what, got.String(), want)
	}
}

// fieldErrors returns the field errors of a VALIDATION_ERROR (failing on anything else).
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

// startRefStore starts a real Redis and loads the default data pack into it.
func startRefStore(t *testing.T) (*sredis.RefStore, rueidis.Client) {
	t.Helper()
	_, rc := redistest.StartWithDefaultPack(t)
	return sredis.NewRefStore(rc), rc
}
