package screening_test

import (
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testcheck"
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
