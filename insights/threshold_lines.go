package insights

import (
	"slices"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// ThresholdLine is a methodology's threshold drawn against one ratio of the quarterly trajectory
// (TrajectoryPoint): a rule whose numerator and denominator are the trajectory ratio's own. Rules
// measured against market capitalisation have no line: the trajectory's ratios are over total assets
// and revenue, and a line from another denominator would mislead.
type ThresholdLine struct {
	Ratio       string          `json:"ratio"`        // a trajectory ratio: debt_to_assets, cash_to_assets, liquidity_to_assets, interest_to_revenue
	Methodology string          `json:"methodology"`  // the methodology id (ftse, msci, ...)
	Name        string          `json:"name"`         // its display name (FTSE, MSCI, ...)
	RuleID      string          `json:"rule"`         // the rule's id within the methodology (debt, cash, ...)
	ThresholdBP decimal.Decimal `json:"threshold_bp"` // basis points
	Comparator  string          `json:"comparator"`   // lt or le: when a ratio at the line passes (le) or fails (lt)
	// Partial: the rule's numerator adds impure revenue to interest income; quarterly filings do not break
	// impure revenue out, so the trajectory's interest/revenue is only the interest part of what the rule
	// counts: the ratio can be under the line and the rule still fail.
	Partial bool `json:"partial,omitempty"`
}

// trajectoryRatioOf maps a rule's numerator and denominator to the trajectory ratio that measures the
// same thing ("" when none does). Interest over revenue stands for a rule on impure revenue plus
// interest (partial) and for one on interest income alone (whole).
func trajectoryRatioOf(num []shariah.Field, den string) (ratio string, partial bool) {
	has := func(fs ...shariah.Field) bool {
		if len(num) != len(fs) {
			return false
		}
		for _, f := range fs {
			if !slices.Contains(num, f) {
				return false
			}
		}
		return true
	}
	switch den {
	case screening.DenTotalAssets:
		switch {
		case has(shariah.TotalDebt):
			return RatioDebtAssets, false
		case has(shariah.CashAndSecurities):
			return RatioCashAssets, false
		case has(shariah.Receivables, shariah.CashAndSecurities):
			return RatioLiquidityAssets, false
		}
	case screening.DenTotalRevenue:
		switch {
		case has(shariah.InterestIncome):
			return RatioInterestRevenue, false
		case has(shariah.ImpureRevenue, shariah.InterestIncome):
			return RatioInterestRevenue, true
		}
	}
	return "", false
}

// ThresholdLines lists the thresholds of a ruleset that apply to the trajectory's ratios, in the
// ruleset's order: of one methodology (by id or display name), or of every methodology when methodology
// is "". A methodology measured only against market capitalisation gives none.
func ThresholdLines(rs *screening.Ruleset, methodology string) []ThresholdLine {
	out := []ThresholdLine{}
	for _, m := range rs.Methodologies {
		if methodology != "" {
			if mm, ok := rs.Methodology(methodology); !ok || mm.ID != m.ID {
				continue
			}
		}
		for _, r := range m.Ratios {
			ratio, partial := trajectoryRatioOf(r.Numerator, r.Denominator)
			if ratio == "" {
				continue
			}
			cmp := r.Comparator
			if cmp == "" {
				cmp = rs.Comparator
			}
			out = append(out, ThresholdLine{Ratio: ratio, Methodology: m.ID, Name: m.Name, RuleID: r.ID,
				ThresholdBP: r.ThresholdBP, Comparator: cmp, Partial: partial})
		}
	}
	return out
}

// Breaches reports whether a ratio (a fraction) fails the line: at or over it under "lt", over it under "le".
func (l ThresholdLine) Breaches(ratio float64) bool {
	bp := decimal.NewFromFloat(ratio).Mul(decimal.NewFromInt(10000))
	if l.Comparator == screening.CmpLE {
		return bp.GreaterThan(l.ThresholdBP)
	}
	return bp.GreaterThanOrEqual(l.ThresholdBP)
}
