package etf

import (
	"context"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// Purification is the amount to purify on an ETF investment.
type Purification struct {
	Symbol             string               `json:"symbol"`
	Investment         shariah.Number       `json:"investment_amount"`
	PurificationRate   *shariah.Number      `json:"purification_rate"` // percent: 3.37 means 3.37%
	PurificationFrac   *shariah.Number      `json:"purification_rate_fraction"`
	PurificationPct    *shariah.Number      `json:"purification_rate_pct"`
	Coverage           string               `json:"purification_coverage_pct"`
	Method             string               `json:"method"`
	HoldingsAsOf       string               `json:"holdings_as_of"`
	DividendIncome     shariah.Number       `json:"dividend_income"`
	DividendBasis      string               `json:"dividend_basis"`
	PurificationAmount *shariah.Number      `json:"purification_amount"`
	Note               string               `json:"note,omitempty"`
	Disclaimers        []shariah.Disclaimer `json:"disclaimers"`
	Illustrative       bool                 `json:"illustrative"`
}

// PurificationRequest is the input of an ETF purification (REST body, MCP arguments): the amount
// invested and, optionally, the dividend income it paid (USD).
type PurificationRequest struct {
	Investment *shariah.Number `json:"investment_amount"` // required, greater than zero, at most MaxAmount
	Dividend   *shariah.Number `json:"dividend_income"`   // optional, zero or more, at most MaxAmount
}

// Validate reports every problem at once (VALIDATION_ERROR); where is the first element of each field's
// location ("body" on REST, "arguments" on MCP).
func (r PurificationRequest) Validate(where string) error {
	var v shariah.Validation
	if r.Investment == nil {
		v.Add("field required", "value_error.missing", where, "investment_amount")
	} else {
		v.Amount(r.Investment.Decimal, true, where, "investment_amount")
	}
	if r.Dividend != nil {
		v.Amount(r.Dividend.Decimal, false, where, "dividend_income")
	}
	return v.Err()
}

// DividendDecimal is the dividend income given, nil when none was.
func (r PurificationRequest) DividendDecimal() *decimal.Decimal {
	if r.Dividend == nil {
		return nil
	}
	d := r.Dividend.Decimal
	return &d
}

// Purify computes the purification of an investment in the ETF: dividend income (given, or estimated
// from the dividends of the 12 months to the latest quote) x the holdings-weighted purification rate.
func (e *Service) Purify(ctx context.Context, symbol, ruleset string, investment decimal.Decimal, dividend *decimal.Decimal) (Purification, error) {
	a, err := e.ETFAsset(ctx, symbol)
	if err != nil {
		return Purification{}, err
	}
	r, err := e.CachedOrScreen(ctx, a.Symbol, ruleset)
	if err != nil {
		return Purification{}, err
	}
	out := Purification{Symbol: a.Symbol, Investment: shariah.NewNumber(investment), PurificationRate: r.PurificationRate,
		PurificationFrac: r.PurificationFraction, PurificationPct: r.PurificationRatePct, Coverage: r.PurificationCoverage, Method: "dividend x holdings-weighted impure-income ratio",
		HoldingsAsOf: r.HoldingsAsOf, Illustrative: r.Illustrative}
	income, basis := decimal.Zero, ""
	if dividend != nil {
		income, basis = *dividend, "dividend income given"
	} else if income, basis, err = e.trailingDividends(ctx, a.Symbol, investment); err != nil {
		return Purification{}, err
	}
	out.DividendIncome, out.DividendBasis = shariah.NewNumber(income.Round(2)), basis
	if r.PurificationFraction == nil || basis == "" {
		out.Note = "Purification needs a known rate and the dividend income: give dividend_income."
	} else {
		n := shariah.NewNumber(income.Mul(r.PurificationFraction.Decimal).Round(2)) // the fraction, never the percent
		out.PurificationAmount = &n
	}
	return out, nil
}

// trailingDividends estimates a year of dividends on an investment from the ETF's dividends in the
// twelve months to its latest quote: investment / price x dividends per share.
func (e *Service) trailingDividends(ctx context.Context, sym string, investment decimal.Decimal) (decimal.Decimal, string, error) {
	q, ok, err := e.Ref.Quote(ctx, sym)
	if err != nil || !ok || q.Price <= 0 {
		return decimal.Zero, "", err
	}
	ds, err := e.Ref.Dividends(ctx, sym)
	if err != nil {
		return decimal.Zero, "", err
	}
	asOf, _ := time.Parse("2006-01-02", q.AsOf)
	from := asOf.AddDate(-1, 0, 0).Format("2006-01-02")
	per := decimal.Zero
	n := 0
	for _, d := range ds {
		if d.ExDate > from && d.ExDate <= q.AsOf {
			per = per.Add(d.Amount.Decimal)
			n++
		}
	}
	if n == 0 {
		return decimal.Zero, "", nil
	}
	shares := investment.Div(decimal.New(int64(q.Price), -6))
	return shares.Mul(per), "estimated: " + strings.TrimSpace(shares.Round(4).String()) + " shares x " + per.String() + " per share paid in the 12 months to " + q.AsOf, nil
}
