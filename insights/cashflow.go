package insights

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
)

// CashflowSource is the filing one cash-flow figure of a year was read from.
type CashflowSource struct {
	Concept   string `json:"concept"`
	Accession string `json:"accession_number"`
	Form      string `json:"form"`
	Filed     string `json:"filed"`
	URL       string `json:"url,omitempty"` // the filing's EDGAR folder, when the CIK is known
}

// CashflowYear is one fiscal year of cash flows, in USD as reported in the 10-K.
type CashflowYear struct {
	FiscalYear         int             `json:"fiscal_year"`
	PeriodStart        string          `json:"period_start"`
	PeriodEnd          string          `json:"period_end"`
	OperatingCashFlow  *shariah.Number `json:"operating_cash_flow"`
	CapitalExpenditure *shariah.Number `json:"capital_expenditure"` // a payment, reported positive
	FreeCashFlow       *shariah.Number `json:"free_cash_flow"`      // operating cash flow - capital expenditure; nil when either is missing
	// Sources maps "operating_cash_flow" and "capital_expenditure" (when present) to their filing.
	Sources map[string]CashflowSource `json:"sources"`
}

// CashflowInsight is the cash-flow view of a company's annual filings, for GET
// /api/insights/{symbol}/cashflow.
type CashflowInsight struct {
	Years     []CashflowYear `json:"years"` // oldest first, the last 5 fiscal years at most
	Trend     string         `json:"trend"` // improving, declining, stable or insufficient_data (see CashflowOf)
	Summary   string         `json:"summary"`
	Available bool           `json:"available"`
	Reason    string         `json:"reason,omitempty"` // why Available is false
}

// The cash-flow trends.
const (
	TrendImproving        = "improving"
	TrendDeclining        = "declining"
	TrendStable           = "stable"
	TrendInsufficientData = "insufficient_data"
)

// The cash-flow concepts, in order of preference: the second of each is a fallback for filers that do
// not report the first.
var (
	ocfConcepts   = []string{"us-gaap:NetCashProvidedByUsedInOperatingActivities", "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"}
	capexConcepts = []string{"us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", "us-gaap:PaymentsToAcquireProductiveAssets"}
)

const (
	cashflowYears       = 5   // years returned
	cashflowTrendYears  = 3   // years the trend looks at
	cashflowMinDays     = 350 // an annual duration, 52/53-week years included
	cashflowMaxDays     = 380
	cashflowStableBand  = "0.05" // relative to |earliest value|
	cashflowSourceOCF   = "operating_cash_flow"
	cashflowSourceCapex = "capital_expenditure"
)

// CashflowOf builds the cash-flow insight from a company's stored XBRL facts (ScreeningFacts of the
// SEC ingester); cik, when given, makes the source URLs.
//
// Only annual durations (Start to End between 350 and 380 days) in USD from 10-K and 10-K/A filings
// count: quarterly and year-to-date values of 10-Qs are ignored. A period is keyed by its End; later
// filings restate earlier ones (a 10-K repeats the prior years, a 10-K/A amends), so for each End the
// value of the latest Filed wins. Operating cash flow is NetCashProvidedByUsedInOperatingActivities,
// else its ContinuingOperations variant; capital expenditure is PaymentsToAcquirePropertyPlantAndEquipment,
// else PaymentsToAcquireProductiveAssets; the preference applies per year.
//
// The trend looks at the fiscal years within the last three (latest fiscal year and the two before)
// and compares the latest value with the earliest one of those, ignoring the middle year: free cash
// flow when at least two of those years have it, else operating cash flow. A change within ±5% of
// |earliest| is stable, above is improving, below declining; fewer than two values is insufficient_data.
func CashflowOf(facts []filings.XBRLFact, cik string) CashflowInsight {
	best := annualCashflowFacts(facts)
	ends := map[string]bool{}
	for _, m := range best {
		for end := range m {
			ends[end] = true
		}
	}
	byYear := map[int]CashflowYear{}
	for end := range ends {
		fy := fiscalYearOfEnd(end)
		if prev, ok := byYear[fy]; ok && prev.PeriodEnd > end {
			continue // a change of fiscal year end: the later period stands for the year
		}
		byYear[fy] = cashflowYear(best, end, cik)
	}

	if len(byYear) == 0 {
		reason := "no cash-flow facts on file"
		if len(facts) > 0 {
			reason = "no annual operating cash flow or capital expenditure reported in USD in a 10-K on file"
		}
		return CashflowInsight{Years: []CashflowYear{}, Trend: TrendInsufficientData, Summary: "No cash-flow data: " + reason + ".", Reason: reason}
	}

	latest := 0
	for fy := range byYear {
		latest = max(latest, fy)
	}
	var years []CashflowYear
	for fy, y := range byYear {
		if fy > latest-cashflowYears {
			years = append(years, y)
		}
	}
	sort.Slice(years, func(i, j int) bool { return years[i].FiscalYear < years[j].FiscalYear })
	trend, summary := cashflowTrend(years, latest)
	return CashflowInsight{Years: years, Trend: trend, Summary: summary, Available: true}
}

// annualCashflowFacts keeps the USD cash-flow facts of 10-K filings spanning about a year, the latest
// filed per concept and period end.
func annualCashflowFacts(facts []filings.XBRLFact) map[string]map[string]filings.XBRLFact {
	best := map[string]map[string]filings.XBRLFact{} // concept -> period end -> latest filed fact
	for _, f := range facts {
		if !isCashflowConcept(f.Concept) || f.Unit != "USD" || (f.Form != "10-K" && f.Form != "10-K/A") || f.Start == "" {
			continue
		}
		start, err1 := time.Parse(time.DateOnly, f.Start)
		end, err2 := time.Parse(time.DateOnly, f.End)
		if err1 != nil || err2 != nil {
			continue
		}
		if d := int(end.Sub(start).Hours() / 24); d < cashflowMinDays || d > cashflowMaxDays {
			continue
		}
		m := best[f.Concept]
		if m == nil {
			m = map[string]filings.XBRLFact{}
			best[f.Concept] = m
		}
		// Latest filing wins; the accession breaks a tie of two filings on the same day.
		if cur, ok := m[f.End]; !ok || f.Filed > cur.Filed || f.Filed == cur.Filed && f.Accession > cur.Accession {
			m[f.End] = f
		}
	}
	return best
}

// cashflowYear is one fiscal year's operating cash flow, capital expenditure and free cash flow, each
// from the first concept of its list that is reported for the period end.
func cashflowYear(best map[string]map[string]filings.XBRLFact, end, cik string) CashflowYear {
	pick := func(concepts []string) (filings.XBRLFact, bool) {
		for _, c := range concepts {
			if f, ok := best[c][end]; ok {
				return f, true
			}
		}
		return filings.XBRLFact{}, false
	}
	y := CashflowYear{FiscalYear: fiscalYearOfEnd(end), PeriodEnd: end, Sources: map[string]CashflowSource{}}
	ocf, hasOCF := pick(ocfConcepts)
	capex, hasCapex := pick(capexConcepts)
	if hasOCF {
		v := ocf.Value
		y.OperatingCashFlow = &v
		y.PeriodStart = ocf.Start
		y.Sources[cashflowSourceOCF] = cashflowSource(ocf, cik)
	}
	if hasCapex {
		v := capex.Value
		y.CapitalExpenditure = &v
		if y.PeriodStart == "" {
			y.PeriodStart = capex.Start
		}
		y.Sources[cashflowSourceCapex] = cashflowSource(capex, cik)
	}
	if hasOCF && hasCapex {
		// Capex is tagged as a positive payment, so free cash flow is the difference.
		fcf := shariah.NewNumber(ocf.Value.Sub(capex.Value.Decimal))
		y.FreeCashFlow = &fcf
	}
	return y
}

func isCashflowConcept(c string) bool {
	for _, cs := range [][]string{ocfConcepts, capexConcepts} {
		for _, x := range cs {
			if c == x {
				return true
			}
		}
	}
	return false
}

// fiscalYearOfEnd is the fiscal year a period ending on end stands for: the End's year, except that a
// year ending in the first days of January (<= Jan 7, the 52/53-week years of retailers ending on the
// Saturday nearest December 31) belongs to the year before. The FY of the fact is not used: it is the
// fiscal year of the filing that reported it, so a 10-K's prior-year comparatives carry the 10-K's FY.
func fiscalYearOfEnd(end string) int {
	t, err := time.Parse(time.DateOnly, end)
	if err != nil {
		return 0
	}
	if t.Month() == time.January && t.Day() <= 7 {
		return t.Year() - 1
	}
	return t.Year()
}

func cashflowSource(f filings.XBRLFact, cik string) CashflowSource {
	s := CashflowSource{Concept: f.Concept, Accession: f.Accession, Form: f.Form, Filed: f.Filed}
	if c := strings.TrimLeft(cik, "0"); c != "" && shariah.IsAccession(f.Accession) {
		s.URL = fmt.Sprintf("https://www.sec.gov/Archives/edgar/data/%s/%s/", c, strings.ReplaceAll(f.Accession, "-", ""))
	}
	return s
}

// cashflowTrend reads the trend of years (oldest first) and says it in one line.
func cashflowTrend(years []CashflowYear, latest int) (string, string) {
	type point struct {
		fy int
		v  decimal.Decimal
	}
	series := func(get func(CashflowYear) *shariah.Number) []point {
		var ps []point
		for _, y := range years {
			if y.FiscalYear > latest-cashflowTrendYears {
				if v := get(y); v != nil {
					ps = append(ps, point{y.FiscalYear, v.Decimal})
				}
			}
		}
		return ps
	}
	name, ps := "Free cash flow", series(func(y CashflowYear) *shariah.Number { return y.FreeCashFlow })
	if len(ps) < 2 {
		name, ps = "Operating cash flow", series(func(y CashflowYear) *shariah.Number { return y.OperatingCashFlow })
	}
	if len(ps) < 2 {
		return TrendInsufficientData, fmt.Sprintf("Not enough fiscal years of cash-flow data for a trend (FY%d-FY%d).", latest-cashflowTrendYears+1, latest)
	}
	first, last := ps[0], ps[len(ps)-1]
	delta := last.v.Sub(first.v)
	band := first.v.Abs().Mul(decimal.RequireFromString(cashflowStableBand))
	trend := TrendStable
	switch {
	case delta.GreaterThan(band):
		trend = TrendImproving
	case delta.LessThan(band.Neg()):
		trend = TrendDeclining
	}
	verb := "was unchanged"
	switch delta.Sign() {
	case 1:
		verb = "rose"
	case -1:
		verb = "fell"
	}
	return trend, fmt.Sprintf("%s %s from %s (FY%d) to %s (FY%d): %s.", name, verb, shortAmount(first.v), first.fy, shortAmount(last.v), last.fy, trend)
}

// shortAmount writes an amount with two decimals and a T/B/M/K suffix: 108807000000 is "108.81B".
func shortAmount(d decimal.Decimal) string {
	sign := ""
	if d.IsNegative() {
		sign, d = "-", d.Neg()
	}
	for _, s := range []struct {
		exp    int32
		suffix string
	}{{12, "T"}, {9, "B"}, {6, "M"}, {3, "K"}} {
		if unit := decimal.New(1, s.exp); d.GreaterThanOrEqual(unit) {
			return sign + d.Div(unit).StringFixed(2) + s.suffix
		}
	}
	return sign + d.StringFixed(2)
}
