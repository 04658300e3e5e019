package shariah_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/sukuk"
)

// TestAmountAndQuantityBounds: the one check of every amount and quantity input (Validation.Amount and
// Quantity): sign, the ceiling (10^15), at most 18 decimal places; decided from the digits, so an
// exponent of two billion costs nothing.
func TestAmountAndQuantityBounds(t *testing.T) {
	t.Parallel()
	if shariah.MaxAmount != 1e15 || shariah.MaxQuantity != 1e15 || shariah.MaxInputPlaces != 18 {
		t.Fatalf("bounds %v %v %v: update the README and the OpenAPI document with them", shariah.MaxAmount, shariah.MaxQuantity, shariah.MaxInputPlaces)
	}
	cases := []struct {
		in       string
		positive bool
		typ      string // "" when valid
	}{
		{"0", false, ""},
		{"0", true, "value_error.number.not_gt"},
		{"-0.01", false, "value_error.number.not_ge"},
		{"-1e9999", false, "value_error.number.not_ge"},
		{"1", true, ""},
		{"1000000000000000", false, ""},
		{"999999999999999.999999999999999999", false, ""},
		{"1000000000000000.000000000000000001", false, "value_error.number.not_le"},
		{"1000000000000001", false, "value_error.number.not_le"},
		{"1e15", false, ""},
		{"1e16", false, "value_error.number.not_le"},
		{"1e9999", false, "value_error.number.not_le"},
		{"1e2000000000", false, "value_error.number.not_le"}, // decimal.New: the parser refuses exponents past 10000
		{"0.30000000000000004", false, ""},
		{"0.000000000000000001", true, ""},
		{"1e-18", true, ""},
		{"1e-19", true, "value_error.number.max_places"},
		{"1e-9999", true, "value_error.number.max_places"},
		{"1e-2000000000", false, "value_error.number.max_places"},
		{"0e2000000000", true, "value_error.number.not_gt"},
		{"12.5000000000000000000000000000", false, ""}, // trailing zeros are not places
		{"125000000000000000000e-20", false, ""},
	}
	for _, c := range cases {
		d, err := decimal.NewFromString(c.in)
		if err != nil { // past the parser's exponent limit: build it
			var exp int32
			fmt.Sscanf(c.in[strings.Index(c.in, "e")+1:], "%d", &exp)
			d = decimal.New(int64(c.in[0]-'0'), exp)
		}
		for _, check := range []struct {
			name string
			f    func(*shariah.Validation, decimal.Decimal, bool, ...any) bool
		}{{"Amount", (*shariah.Validation).Amount}, {"Quantity", (*shariah.Validation).Quantity}} {
			var v shariah.Validation
			ok := check.f(&v, d, c.positive, "body", "x") // decided from the digits (BenchmarkAmountHugeExponent times it)
			err := v.Err()
			if c.typ == "" {
				if !ok || err != nil {
					t.Errorf("%s(%s, positive %v): %v", check.name, c.in, c.positive, err)
				}
				continue
			}
			if ok {
				t.Errorf("%s(%s) passed, want %s", check.name, c.in, c.typ)
				continue
			}
			if errs := fieldErrors(t, err); !hasFieldError(errs, c.typ, "body", "x") {
				t.Errorf("%s(%s): want %s at body.x, got %+v", check.name, c.in, c.typ, errs)
			}
		}
	}
}

// TestNumberRefusesNonFinite: NaN, Infinity, an exponent past 32 bits and overlong text are JSON type
// errors naming the field (the edge and MCP turn them into a 422 at that field); a zero with a huge
// exponent is plain zero.
func TestNumberRefusesNonFinite(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`"NaN"`, `"nan"`, `"Infinity"`, `"-Infinity"`, `"inf"`, `"1e99999999999"`, `1e2000000000`, `"ten"`, `true`, `{}`,
		`"` + strings.Repeat("1", shariah.MaxNumberText) + `"`} {
		var req finance.ZakatRequest
		err := json.Unmarshal([]byte(`{"holdings":[{"symbol":"AAPL","shares":1},{"symbol":"AAPL","market_value":`+raw+`}]}`), &req)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field != "holdings.market_value" {
			t.Errorf("market_value %s: want a type error at holdings.market_value, got %v", raw, err)
		}
		err = json.Unmarshal([]byte(`{"cash":`+raw+`}`), &req)
		if !errors.As(err, &te) || te.Field != "cash" {
			t.Errorf("cash %s: want a type error at cash, got %v", raw, err)
		}
	}
	var n shariah.Number
	if err := json.Unmarshal([]byte(`0e9999`), &n); err != nil || !n.Equal(decimal.Zero) || n.Exponent() != 0 {
		t.Errorf("0e9999: %v %v", n, err)
	}
	if b, _ := json.Marshal(n); string(b) != "0" {
		t.Errorf("zero marshals as %s", b)
	}
}

// TestCalculatorsRefuseOutOfBoundAmounts: zakat, purification, sukuk and ETF purification inputs above
// the ceiling, negative or with too many places are 422 naming the field, before any store is read.
func TestCalculatorsRefuseOutOfBoundAmounts(t *testing.T) {
	t.Parallel()
	huge := decp("1e9999")
	_, err := (&finance.Zakat{}).Calculate(context.Background(), finance.ZakatRequest{
		Cash: amt("1e9999"), Receivables: amt("1000000000000001"), Debts: amt("-1"), GoldPricePerGram: huge,
		Holdings: []finance.ZakatHolding{{Symbol: "AAPL", MarketValue: huge}, {Symbol: "MSFT", Shares: decp("1e16")}, {Symbol: "KO", Shares: decp("1e-9999")}}})
	errs := fieldErrors(t, err)
	for _, want := range []struct {
		typ string
		loc []any
	}{
		{"value_error.number.not_le", []any{"body", "cash"}},
		{"value_error.number.not_le", []any{"body", "receivables"}},
		{"value_error.number.not_ge", []any{"body", "debts"}},
		{"value_error.number.not_le", []any{"body", "gold_price_per_gram"}},
		{"value_error.number.not_le", []any{"body", "holdings", 0, "market_value"}},
		{"value_error.number.not_le", []any{"body", "holdings", 1, "shares"}},
		{"value_error.number.max_places", []any{"body", "holdings", 2, "shares"}},
	} {
		if !hasFieldError(errs, want.typ, want.loc...) {
			t.Errorf("zakat: want %s at %v, got %+v", want.typ, want.loc, errs)
		}
	}

	_, err = (&finance.Purifier{}).Calculate(context.Background(), finance.PurificationRequest{Holdings: []finance.PurificationHolding{
		{Symbol: "AAPL", DividendIncome: huge}, {Symbol: "MSFT", Shares: decp("2e15")}}})
	errs = fieldErrors(t, err)
	if !hasFieldError(errs, "value_error.number.not_le", "body", "holdings", 0, "dividend_income") ||
		!hasFieldError(errs, "value_error.number.not_le", "body", "holdings", 1, "shares") {
		t.Errorf("purification: %+v", errs)
	}

	sk := sukuk.ImpactRequest{Holdings: []sukuk.Holding{{ISIN: "US0378331005", Nominal: huge}, {ISIN: "US0378331005", MarketValue: decp("1e-20")}}}
	errs = fieldErrors(t, sk.Validate())
	if !hasFieldError(errs, "value_error.number.not_le", "body", "holdings", 0, "nominal") ||
		!hasFieldError(errs, "value_error.number.max_places", "body", "holdings", 1, "market_value") {
		t.Errorf("sukuk: %+v", errs)
	}

	errs = fieldErrors(t, etf.PurificationRequest{Investment: huge, Dividend: decp("-1")}.Validate("arguments"))
	if !hasFieldError(errs, "value_error.number.not_le", "arguments", "investment_amount") ||
		!hasFieldError(errs, "value_error.number.not_ge", "arguments", "dividend_income") {
		t.Errorf("etf purification: %+v", errs)
	}
	errs = fieldErrors(t, etf.PurificationRequest{}.Validate("body"))
	if !hasFieldError(errs, "value_error.missing", "body", "investment_amount") {
		t.Errorf("etf purification without investment: %+v", errs)
	}
	if err := (etf.PurificationRequest{Investment: decp("1000000000000000"), Dividend: decp("0")}).Validate("body"); err != nil {
		t.Errorf("at the ceiling: %v", err)
	}
}

// TestZakatResponseIsBounded: the largest amounts the bounds allow give a response of a few dozen
// digits per figure (1e9999 used to give ten thousand digits per figure and 3 MB for 3.5 KB).
func TestZakatResponseIsBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"gold_price_per_gram":"0.000000000000000001","silver_price_per_gram":1,"cash":"999999999999999.999999999999999999","holdings":[`)
	for i := 0; i < finance.MaxZakatHoldings; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"symbol":"A","market_value":999999999999999.999999999999999999}`)
	}
	b.WriteString(`]}`)
	var req finance.ZakatRequest
	if err := json.Unmarshal([]byte(b.String()), &req); err != nil {
		t.Fatal(err)
	}
	res, err := (&finance.Zakat{}).Calculate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res)
	if len(out) > 4*b.Len()+8<<10 {
		t.Errorf("request %d bytes, response %d", b.Len(), len(out))
	}
	big := strings.Replace(b.String(), "999999999999999.999999999999999999}", "1e9999}", 1)
	if err := json.Unmarshal([]byte(big), &req); err != nil {
		t.Fatal(err)
	}
	if _, err := (&finance.Zakat{}).Calculate(context.Background(), req); shariah.ErrorCode(err) != shariah.EVALIDATION {
		t.Errorf("1e9999: %v", err)
	}
}

// TestNameRefusesControlAndBidi: the one check of stored names (Validation.Name), used by watchlists
// over REST and MCP alike.
func TestNameRefusesControlAndBidi(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"a\x00b", "\u202egnp.exe", "x\x1b[31m", "tab\there", "new\nline", "del\x7f", "c1\u0085x", "c1\u009b",
		"\u2066iso\u2069", "\u202aemb", "rlm\u200f", "lrm\u200e", "alm\u061c", "sep\u2028x", "para\u2029x"} {
		var v shariah.Validation
		name := bad
		if _, ok := v.Name(&name, 100, "body", "name"); ok {
			t.Errorf("%q passed", bad)
			continue
		}
		if errs := fieldErrors(t, v.Err()); !hasFieldError(errs, "value_error.str.forbidden_character", "body", "name") {
			t.Errorf("%q: %+v", bad, errs)
		}
	}
	for in, want := range map[string]string{"  Tech  ": "Tech", "محفظتي الحلال": "محفظتي الحلال", "Dividends 2026 ☪️": "Dividends 2026 ☪️",
		"\tpadded\n": "padded", "naïve – café": "naïve – café"} {
		var v shariah.Validation
		if got, ok := v.Name(&in, 100, "body", "name"); !ok || got != want || v.Err() != nil {
			t.Errorf("%q: %q %v %v", in, got, ok, v.Err())
		}
	}
	for _, c := range []struct {
		name *string
		typ  string
	}{{nil, "value_error.missing"}, {new(string), "value_error.any_str.min_length"}, {ptr(strings.Repeat("é", 101)), "value_error.any_str.max_length"}} {
		var v shariah.Validation
		if _, ok := v.Name(c.name, 100, "body", "name"); ok || !hasFieldError(fieldErrors(t, v.Err()), c.typ, "body", "name") {
			t.Errorf("%v: want %s, got %v", c.name, c.typ, v.Err())
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestEmailRefusesControlAndBidi: an email address is stored and shown too; the mail parser accepts any
// non-ASCII character in it, so the characters stored names may not hold are refused there as well.
func TestEmailRefusesControlAndBidi(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"a\u202eb@example.com", "a\u0085b@example.com", "ab@exa\u2066mple.com", "a\x00@example.com"} {
		if got, ok := account.NormalizeEmail(bad); ok {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
	if got, ok := account.NormalizeEmail("Jamal@Example.com"); !ok || got != "jamal@example.com" {
		t.Errorf("a plain address: %q %v", got, ok)
	}
}

// TestTypeErrorLoc: a JSON type error is located down to the array index (encoding/json names only the
// keys), through nested arrays, keys written in another case and arrays of scalars; where the data
// cannot be followed the decoder's own field path is kept.
func TestTypeErrorLoc(t *testing.T) {
	t.Parallel()
	type inner struct {
		X int `json:"x"`
	}
	type holding struct {
		finance.ZakatHolding
		Sub []inner `json:"sub"`
	}
	type body struct {
		Holdings []holding `json:"holdings"`
		Tags     []string  `json:"tags"`
		Cash     *shariah.Number
	}
	for _, c := range []struct{ in, want string }{
		{`{"holdings":[{"symbol":"A","market_value":1},{"symbol":"B","market_value":"lots"}]}`, `["holdings",1,"market_value"]`},
		{`{"holdings":[{"symbol":"A","market_value":"lots"},{"symbol":"B","market_value":"lots"}]}`, `["holdings",0,"market_value"]`},
		{`{"holdings":[{"symbol":"A"},{"sub":[{"x":1},{"x":"y"}]}]}`, `["holdings",1,"sub",1,"x"]`},
		{`{"HOLDINGS":[{"symbol":"A"},{"Market_Value":[]}]}`, `["holdings",1,"market_value"]`},
		{`{"tags":["a",5]}`, `["tags",1]`},
		{`{"holdings":"x"}`, `["holdings"]`},
		{`{"Cash":"lots"}`, `["Cash"]`},
		{`{"holdings":[{"symbol":7}]}`, `["holdings",0,"symbol"]`},
	} {
		var b body
		err := json.Unmarshal([]byte(c.in), &b)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v", c.in, err)
		}
		got, _ := json.Marshal(shariah.TypeErrorLoc([]byte(c.in), &b, te))
		if string(got) != c.want {
			t.Errorf("%s: loc %s, want %s", c.in, got, c.want)
		}
	}
}

// BenchmarkAmountHugeExponent: the bounds of an amount with an exponent of two billion are decided from
// its digits, so the check costs what a small number's does.
func BenchmarkAmountHugeExponent(b *testing.B) {
	for _, d := range []decimal.Decimal{decimal.New(1, 2_000_000_000), decimal.New(1, -2_000_000_000), decimal.RequireFromString("1234.5")} {
		b.Run(fmt.Sprintf("exp%d", d.Exponent()), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var v shariah.Validation
				v.Amount(d, false, "body", "x")
			}
		})
	}
}
