package finance_test

import (
	"testing"

	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testcheck"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

// The checks the domain packages' tests share (internal/testcheck), under the names these tests use.
var (
	dec           = testcheck.Dec
	amt           = testcheck.Amt
	decp          = testcheck.DecP
	wantDec       = testcheck.WantDec
	fieldErrors   = testcheck.FieldErrors
	hasFieldError = testcheck.HasFieldError
	startRefStore = redistest.RefStore
)

func allRulesets(t testing.TB) screening.Rulesets {
	t.Helper()
	rs, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
