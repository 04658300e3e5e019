package screening

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shariah-screen/shariah"
)

// ScreeningPeriods is the one answer to "which period does a screening of this company stand on, and
// which period did each of its inputs come from". The screening, the provenance endpoint, the stock
// view and the trajectory all take their periods from it (PeriodsFor), so they name the same period
// for every input:
//   - the screened period is the one with the latest end; at the same end the fiscal year wins over
//     its fourth quarter (a year's revenue describes the business better than one quarter's, and a
//     10-K is a fiscal-year filing): a company whose latest filing is a 10-K is screened on FY figures;
//   - when the screened period reports no interest income and the ruleset needs it and carries it
//     forward, the ratios that set interest income against revenue use the latest fiscal year within
//     the last two that reported it (carriedInterestPeriod), and their inputs come from that year;
//   - shares outstanding are the screened period's, else those of the most recent period reporting them.
type ScreeningPeriods struct {
	Screened *shariah.Fundamentals // nil when no fundamentals are on file
	// NeedsInterest: the screened period reports no interest income and a ratio of the ruleset uses it.
	NeedsInterest bool
	// Carry is the fiscal year interest income is carried from; nil when not carried (not needed, the
	// ruleset does not carry, or no fiscal year within the last two reported it).
	Carry  *shariah.Fundamentals
	Shares *shariah.Fundamentals // the period whose shares outstanding the market cap uses; nil when none reports them
	rs     *Ruleset
}

// PeriodsFor picks the periods a screening under rs stands on among fs (every period on file, oldest
// first). rs may be nil: then no ratio is known to need interest income and none is carried.
func PeriodsFor(fs []shariah.Fundamentals, rs *Ruleset) ScreeningPeriods {
	sp := ScreeningPeriods{rs: rs}
	for i := range fs {
		f := &fs[i]
		if sp.Screened == nil || f.PeriodEnd > sp.Screened.PeriodEnd || (f.PeriodEnd == sp.Screened.PeriodEnd && f.Period == "FY") {
			sp.Screened = f
		}
	}
	if sp.Screened == nil {
		return sp
	}
	if _, ok := sp.Screened.Facts[shariah.SharesOutstanding]; ok {
		sp.Shares = sp.Screened
	} else {
		for i := len(fs) - 1; i >= 0; i-- {
			if _, ok := fs[i].Facts[shariah.SharesOutstanding]; ok {
				sp.Shares = &fs[i]
				break
			}
		}
	}
	if _, ok := sp.Screened.Facts[shariah.InterestIncome]; !ok && rs != nil && rs.usesField(shariah.InterestIncome) {
		sp.NeedsInterest = true
		if rs.CarriesInterestForward() {
			sp.Carry = carriedInterestPeriod(fs, sp.Screened)
		}
	}
	return sp
}

// usesField reports whether a ratio of the ruleset reads field f (numerator or denominator).
func (rs *Ruleset) usesField(f shariah.Field) bool {
	for _, m := range rs.Methodologies {
		for _, r := range m.Ratios {
			if slices.Contains(r.Numerator, f) || shariah.Field(r.Denominator) == f {
				return true
			}
		}
	}
	return false
}

// RatioCarried reports whether a ratio is computed on the carried fiscal year: interest income is
// carried, the ratio needs it, and it is set against revenue (a year's interest against the same
// year's revenue; against anything else the years would be mixed).
func (sp ScreeningPeriods) RatioCarried(rule RatioRule) bool {
	return sp.Carry != nil && rule.Denominator == DenTotalRevenue && slices.Contains(rule.Numerator, shariah.InterestIncome)
}

// RatioPeriod is the period whose figures a ratio's numerator and book denominator are read from.
func (sp ScreeningPeriods) RatioPeriod(rule RatioRule) *shariah.Fundamentals {
	if sp.RatioCarried(rule) {
		return sp.Carry
	}
	return sp.Screened
}

// PeriodOf is the period input f is taken from: shares outstanding from Shares; an input that a ratio
// computed on the carried fiscal year reads (interest income, and beside it revenue and impure
// revenue) from Carry; everything else from the screened period. The revenue breakdown and the
// purification rate follow the same rule (they stand on the carried year when there is one).
func (sp ScreeningPeriods) PeriodOf(f shariah.Field) *shariah.Fundamentals {
	if f == shariah.SharesOutstanding && sp.Shares != nil {
		return sp.Shares
	}
	if sp.Carry != nil && sp.rs != nil {
		for _, m := range sp.rs.Methodologies {
			for _, r := range m.Ratios {
				if sp.RatioCarried(r) && (slices.Contains(r.Numerator, f) || shariah.Field(r.Denominator) == f) {
					return sp.Carry
				}
			}
		}
	}
	return sp.Screened
}

// PeriodInput is one screening input with the period it was taken from (or looked for in).
type PeriodInput struct {
	Field     shariah.Field
	Period    *shariah.Fundamentals // nil only when no fundamentals are on file
	Available bool
	Fact      shariah.Fact // when Available
	Reason    string       // when not: why the period lacks it
	Carried   bool         // taken from another period than the screened one
}

// Input is input f as the screening uses it: its value and the period it came from, or why the period
// it is looked for in lacks it.
func (sp ScreeningPeriods) Input(f shariah.Field) PeriodInput {
	p := sp.PeriodOf(f)
	in := PeriodInput{Field: f, Period: p}
	if p == nil {
		in.Reason = "no fundamentals on file"
		return in
	}
	in.Carried = p != sp.Screened
	if fact, ok := p.Facts[f]; ok {
		in.Available, in.Fact = true, fact
		return in
	}
	in.Reason = p.Missing[f]
	if in.Reason == "" {
		in.Reason = "not reported"
	}
	if f == shariah.InterestIncome && sp.NeedsInterest && sp.Carry == nil {
		if sp.rs != nil && !sp.rs.CarriesInterestForward() {
			in.Reason += "; this ruleset does not carry interest income forward from an earlier fiscal year"
		} else {
			in.Reason += "; no fiscal year within the last two reported it"
		}
	}
	return in
}

// Inputs is every screening input (Fields) as the screening uses it.
func (sp ScreeningPeriods) Inputs() map[shariah.Field]PeriodInput {
	out := make(map[shariah.Field]PeriodInput, len(shariah.Fields))
	for _, f := range shariah.Fields {
		out[f] = sp.Input(f)
	}
	return out
}

// Sources lists the distinct sources of the facts the inputs are taken from, sorted.
func (sp ScreeningPeriods) Sources() []string {
	seen := map[string]bool{}
	for _, f := range shariah.Fields {
		if in := sp.Input(f); in.Available {
			seen[in.Fact.Source] = true
		}
	}
	return sortedSet(seen)
}

// InputPeriods names, for each input the screening uses, the period it came from (PeriodLabel).
func (sp ScreeningPeriods) InputPeriods() map[string]string {
	out := map[string]string{}
	if sp.Screened == nil {
		return out
	}
	for _, f := range shariah.Fields {
		if p := sp.PeriodOf(f); p != nil {
			out[string(f)] = PeriodLabel(*p)
		}
	}
	return out
}

// PeriodLabel names a period as a reader says it: "FY2024" for a fiscal year, "Q2 2025" for a quarter
// of fiscal year 2025 (the filer's fiscal year, which may end in another calendar year). Without a
// fiscal year the period end names it: "FY ending 2024-12-31", "Q2 ending 2025-06-30".
func PeriodLabel(f shariah.Fundamentals) string {
	return PeriodLabelOf(f.Period, f.FiscalYear, f.PeriodEnd)
}

// PeriodLabelOf is PeriodLabel of a period named by its parts (a trajectory point has no Fundamentals).
func PeriodLabelOf(period string, fy int, end string) string {
	if period == "" {
		period = "period"
	}
	if fy <= 0 {
		return period + " ending " + end
	}
	if period == "FY" {
		return "FY" + strconv.Itoa(fy)
	}
	return period + " " + strconv.Itoa(fy)
}

// carryWhy says why the screened period has no interest income: "2025-06-28 Q3: not reported".
func (sp ScreeningPeriods) carryWhy() string {
	why := sp.Screened.Missing[shariah.InterestIncome]
	if why == "" {
		why = "not reported"
	}
	return fmt.Sprintf("%s %s: %s", sp.Screened.PeriodEnd, sp.Screened.Period, why)
}

// carryYears is how many fiscal years back interest income may be carried from.
const carryYears = 2

// carriedInterestPeriod finds, for a screened period p without interest income, the latest fiscal year
// within the last two that reported a filed interest income and a positive revenue: for a fiscal-year
// (or fourth-quarter) period, its own year and the one before; for Q1-Q3, the two completed years
// before it. Without fiscal years on both, the year must have ended within two years (and two weeks,
// for 53-week years) of p. Only filed or live values qualify: an illustrative number was never reported.
func carriedInterestPeriod(fs []shariah.Fundamentals, p *shariah.Fundamentals) *shariah.Fundamentals {
	if p == nil {
		return nil
	}
	pEnd, err := time.Parse("2006-01-02", p.PeriodEnd)
	if err != nil {
		return nil
	}
	var best *shariah.Fundamentals
	for i := range fs {
		f := &fs[i]
		if f.Period != "FY" || f.PeriodEnd > p.PeriodEnd {
			continue
		}
		ii, hasI := f.Facts[shariah.InterestIncome]
		rev, hasR := f.Facts[shariah.TotalRevenue]
		if !hasI || !hasR || !rev.Value.IsPositive() || (ii.Source != shariah.SourceFiling && ii.Source != shariah.SourceLive) {
			continue
		}
		if p.FiscalYear != 0 && f.FiscalYear != 0 {
			newest := p.FiscalYear
			if p.Period != "FY" && p.Period != "Q4" {
				newest-- // the current fiscal year is not complete
			}
			if f.FiscalYear > newest || f.FiscalYear <= newest-carryYears {
				continue
			}
		} else if end, err := time.Parse("2006-01-02", f.PeriodEnd); err != nil || end.Before(pEnd.AddDate(-carryYears, 0, -14)) {
			continue
		}
		if best == nil || f.PeriodEnd > best.PeriodEnd {
			best = f
		}
	}
	return best
}
