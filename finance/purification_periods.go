package finance

import "github.com/shopspring/decimal"
import "github.com/shariah-screen/shariah"

// PeriodPurification is what to purify for one fiscal period under the AAOIFI method (Standard 21):
// the period's impure income per share, and for the shares held (when given) the amount to cents.
// Fields are in the order of the JSON the edge has always served (alphabetical).
type PeriodPurification struct {
	Amount    *shariah.Number `json:"amount,omitempty"`
	Currency  string          `json:"currency,omitempty"`
	PerShare  shariah.Number  `json:"impure_income_per_share"`
	PeriodEnd string          `json:"period_end"`
	Source    string          `json:"source"`
	Ref       string          `json:"source_ref"`
}

// PurifyPeriods lists, oldest first, the purification of every fiscal year with impure income per
// share (ImpureIncomePerShare): independent of dividends, shares x impure income per share, to cents.
func PurifyPeriods(fs []shariah.Fundamentals, shares *decimal.Decimal) []PeriodPurification {
	out := []PeriodPurification{}
	for _, p := range ImpureIncomePerShare(fs) {
		pp := PeriodPurification{PeriodEnd: p.PeriodEnd, PerShare: p.PerShare, Currency: p.Currency, Source: p.Source, Ref: p.Ref}
		if shares != nil {
			pp.Amount = centsp(p.PerShare.Mul(*shares))
		}
		out = append(out, pp)
	}
	return out
}
