package sukuk_test

import (
	"github.com/shariah-screen/shariah/internal/testcheck"
)

// The checks the domain packages' tests share (internal/testcheck), under the names these tests use.
var (
	dec           = testcheck.Dec
	decp          = testcheck.DecP
	wantDec       = testcheck.WantDec
	fieldErrors   = testcheck.FieldErrors
	hasFieldError = testcheck.HasFieldError
)
