package shariah

import (
	"encoding/json"
	"reflect"

	"github.com/shopspring/decimal"
)

// Number is an exact decimal that marshals as a JSON number (amounts in reporting-currency units,
// market caps). Money shown as prices uses Price; plan prices are decimal strings.
type Number struct{ decimal.Decimal }

// NewNumber wraps a decimal.
func NewNumber(d decimal.Decimal) Number { return Number{d} }

// MarshalJSON writes the exact digits as a JSON number.
func (n Number) MarshalJSON() ([]byte, error) { return []byte(n.Decimal.String()), nil }

// UnmarshalJSON reads a JSON number or numeric string; anything else is a JSON type error (so a
// request body with "ten", "NaN", "Infinity", an exponent past 32 bits or a number longer than
// MaxNumberText characters for an amount is a 422 naming the field). Bounds are Validation's (Amount,
// Quantity).
func (n *Number) UnmarshalJSON(b []byte) error {
	var d decimal.Decimal
	if len(b) > MaxNumberText {
		return &json.UnmarshalTypeError{Value: "number", Type: reflect.TypeOf(float64(0))}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeOf(float64(0))}
	}
	if d.Sign() == 0 {
		d = decimal.Zero // 0e9999 is zero: its exponent would cost ten thousand digits in every sum
	}
	n.Decimal = d
	return nil
}
