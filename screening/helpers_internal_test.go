package screening

import (
	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

func numOf(s string) shariah.Number { return shariah.NewNumber(decimal.RequireFromString(s)) }
