package market

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// The policy rates that bound an interest income nobody filed (see interest_bound.go). One table, here.
//
// PolicyRate is the highest upper bound of the US federal funds target range in force at any time in a
// calendar year, in basis points, and the decision that set it. Source: Board of Governors of the Federal
// Reserve System, "Policy Tools: Open Market Operations", the table of FOMC changes to the target range
// (https://www.federalreserve.gov/monetarypolicy/openmarket.htm; the same series is DFEDTARU on FRED);
// each row names the FOMC decision (effective date) that set the year's highest upper bound, or the one
// in force on 1 January when the year only lowered it. Written 2026-11-26 without network access to that
// page: the rows are the published decisions as known to the author, the 2025-12-10 cut to 3.50-3.75%
// and the range going into the June 2026 meeting checked against public reports (Haver Analytics, "FOMC
// Lowers Fed Funds Rate Target as Expected", December 2025; calendarial.com, "FOMC rate decision June
// 2026"). Check the table against the Federal Reserve's page when updating it. No shared data set holds
// the series (market/ has gold, exchange rates and the Shiller S&P series, whose rate column is the
// 10-year Treasury yield), so the table is written here with its source.
type PolicyRate struct {
	Year  int
	MaxBP int64  // the year's highest upper bound of the target range, basis points
	Set   string // the decision (effective date) that set it, or why it is the year's highest
}

// PolicyRates is the table, oldest first: federal funds target range, highest upper bound per year.
var PolicyRates = []PolicyRate{
	{2015, 50, "0.25-0.50% from 2015-12-17 (the first increase since 2008)"},
	{2016, 75, "0.50-0.75% from 2016-12-15"},
	{2017, 150, "1.25-1.50% from 2017-12-14"},
	{2018, 250, "2.25-2.50% from 2018-12-20"},
	{2019, 250, "2.25-2.50% in force from 1 January until 2019-08-01 (three cuts followed)"},
	{2020, 175, "1.50-1.75% in force from 1 January until 2020-03-04 (cut to 0-0.25% by 2020-03-16)"},
	{2021, 25, "0-0.25% all year"},
	{2022, 450, "4.25-4.50% from 2022-12-15"},
	{2023, 550, "5.25-5.50% from 2023-07-27"},
	{2024, 550, "5.25-5.50% in force from 1 January until 2024-09-19"},
	{2025, 450, "4.25-4.50% in force from 1 January until 2025-09-18 (3.50-3.75% from 2025-12-11)"},
	{2026, 375, "3.50-3.75% in force from 1 January (set 2025-12-11) through the table's last date"},
}

// PolicyRatesThrough is the last day the table is known for: the target range was 3.50-3.75% going
// into the FOMC meeting of 16-17 June 2026, whose decision the table does not record. A window that
// runs past it is bounded with PolicyRateTailBP added (see PolicyRateOver).
const PolicyRatesThrough = "2026-06-17"

// PolicyRateTailBP is added to the last known rate for each 42 days (or part of them) a window runs
// past PolicyRatesThrough: 75 bp is the largest increase the FOMC has made at one meeting since 1994
// (1994-11-15, and four times in 2022), and it meets about every six weeks. A window more than a year
// past the table has no bound.
const PolicyRateTailBP = 75

// PolicyRateMarginBP is the stated margin over the policy rate: interest-bearing assets may earn more
// than the policy rate (longer maturities, corporate paper, deposits in higher-rate currencies); 100 bp
// above the year's highest policy rate is the allowance. A ruleset can switch bounds off altogether
// (bounded_inputs: false).
const PolicyRateMarginBP = 100

// PolicyRateSource names the table's source in explanations.
const PolicyRateSource = "US federal funds target range, highest upper bound in each year (Federal Reserve, FOMC decisions; table in policy_rates.go)"

// PolicyRateOver is the highest policy rate in force at any time from start to end (dates inclusive),
// in basis points: the highest of the table's years the window touches, plus PolicyRateTailBP for each
// 42 days (or part) it runs past PolicyRatesThrough. ok is false when a year of the window precedes
// the table or the window runs more than a year past it. how says which years and any tail.
func PolicyRateOver(start, end time.Time) (bp int64, how string, ok bool) {
	if end.Before(start) {
		return 0, "", false
	}
	through, _ := time.Parse("2006-01-02", PolicyRatesThrough)
	byYear := map[int]PolicyRate{}
	for _, r := range PolicyRates {
		byYear[r.Year] = r
	}
	last := PolicyRates[len(PolicyRates)-1]
	bestYear := 0
	for y := start.Year(); y <= end.Year(); y++ {
		r, known := byYear[y]
		if !known {
			if y > last.Year {
				r = last // the tail below covers what the table does not record
			} else {
				return 0, "", false
			}
		}
		if r.MaxBP > bp || bestYear == 0 {
			bp, bestYear = r.MaxBP, r.Year
		}
	}
	how = fmt.Sprintf("%s%% (%d: %s)", decimal.New(bp, -2).StringFixed(2), bestYear, byYear[bestYear].Set)
	if end.After(through) {
		days := int(end.Sub(through).Hours() / 24)
		if days > 366 {
			return 0, "", false
		}
		steps := int64((days + 41) / 42)
		tail := steps * PolicyRateTailBP
		if last.MaxBP+tail > bp {
			bp = last.MaxBP + tail
		}
		how += fmt.Sprintf("; the window runs %d days past the table's last date (%s): %d x %d bp added to the last known %s%%, %s%%",
			days, PolicyRatesThrough, steps, PolicyRateTailBP, decimal.New(last.MaxBP, -2).StringFixed(2), decimal.New(bp, -2).StringFixed(2))
	}
	return bp, how, true
}
