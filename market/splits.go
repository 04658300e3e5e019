package market

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// Split is a stock split of a symbol: Ratio new shares for each old one (10 for a 10-for-1 split, 0.1
// for a 1-for-10 reverse split). It took effect after After and on or before On (After is "" when the
// date is exact). Source names where it is known from: the price source's split history, the
// companyfacts-derived set, a filing's split facts, or an inference (a ratio jump in the closes, or a
// market snapshot's share count), named as such.
type Split struct {
	Symbol string
	After  string // YYYY-MM-DD, exclusive; "" when On is the exact date
	On     string // YYYY-MM-DD, inclusive
	Ratio  decimal.Decimal
	Source string
}

// Name writes a split as people say it: "10-for-1", "1-for-10", "3-for-2".
func (s Split) Name() string {
	r := s.Ratio
	if r.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		if r.IsInteger() {
			return r.String() + "-for-1"
		}
		return r.Mul(decimal.NewFromInt(2)).Round(0).String() + "-for-2"
	}
	inv := decimal.NewFromInt(1).DivRound(r, 0)
	return "1-for-" + inv.String()
}

// When writes the split's date, or its window when the data does not give the day.
func (s Split) When() string {
	if s.After == "" {
		return s.On
	}
	return "between " + s.After + " (exclusive) and " + s.On
}

// splitFactors are the split factors an unexplained ratio may be read as (and their inverses, reverse
// splits). 1.5 (3-for-2) is left out: a 50% share issue looks the same.
var splitFactors = []float64{2, 3, 4, 5, 8, 10, 15, 20, 25, 30, 40, 50}

// SplitTolerance is how far (relative) a ratio may be from a split factor to be read as that split.
const SplitTolerance = 0.06

// MatchSplitFactor reads a ratio (after / before) as a split factor: 10 for about 10, 0.1 for about a
// tenth. ok is false when the ratio is not within SplitTolerance of a split factor or its inverse.
func MatchSplitFactor(ratio float64) (decimal.Decimal, bool) {
	if ratio <= 0 || math.IsNaN(ratio) || math.IsInf(ratio, 0) {
		return decimal.Zero, false
	}
	inv := ratio < 1
	r := ratio
	if inv {
		r = 1 / ratio
	}
	for _, k := range splitFactors {
		if math.Abs(r/k-1) <= SplitTolerance {
			d := decimal.NewFromFloat(k)
			if inv {
				return decimal.NewFromInt(1).DivRound(d, 8), true
			}
			return d, true
		}
	}
	return decimal.Zero, false
}

// SplitBasis puts a share count dated at (YYYY-MM-DD) on the basis of closes adjusted for every split
// in splits (split-adjusted closes carry every split up to the source's retrieval): the factor is the
// product of the ratios of the splits after the share date. applied are those splits; unplaced, the
// splits whose window contains the date (the data cannot say whether the count is before or after
// them: a market cap from it is suspect).
func SplitBasis(splits []Split, at string) (factor decimal.Decimal, applied, unplaced []Split) {
	factor = decimal.NewFromInt(1)
	for _, s := range splits {
		switch {
		case at == "" || (s.After != "" && at > s.After && at < s.On):
			unplaced = append(unplaced, s)
		case (s.After != "" && at <= s.After) || (s.After == "" && at < s.On):
			factor = factor.Mul(s.Ratio)
			applied = append(applied, s)
		}
	}
	return factor, applied, unplaced
}

// SplitUnplaced begins the Missing reason of a share count held back because a split cannot be
// placed in time relative to it, or because it disagrees with the company's other cover counts by a
// split factor. A market cap from such a period is suspect: it is held back, not served.
const SplitUnplaced = "suspect share count: "

// MarketCapHeldBack begins every note of a market cap held back as suspect (SuspectMarketCap): the
// mark rule (marks.go) reads it.
const MarketCapHeldBack = "market cap held back"

// SuspectCapMove is the move of the market cap between consecutive periods beyond which it is held
// back as suspect (a share count on another basis than the closes, most often).
const SuspectCapMove = 3

// SuspectMarketCap says why a company's market cap should be held back, or "": the latest period
// reporting shares (or holding them back, SplitUnplaced) holds them back, or the market cap moved more
// than SuspectCapMove times between the last two periods with shares (each period's shares times the
// last month-end close on or before its end).
func SuspectMarketCap(fs []shariah.Fundamentals, monthly []shariah.Bar) string {
	type point struct {
		end    string
		cap    decimal.Decimal
		shares decimal.Decimal
		close  shariah.Price
	}
	sorted := make([]shariah.Fundamentals, len(fs))
	copy(sorted, fs)
	shariah.SortFundamentals(sorted)
	var pts []point
	seen := map[string]bool{}
	for i := len(sorted) - 1; i >= 0; i-- {
		f := sorted[i]
		if _, ok := f.Facts[shariah.SharesOutstanding]; ok {
			break
		}
		if why := f.Missing[shariah.SharesOutstanding]; strings.HasPrefix(why, SplitUnplaced) {
			return fmt.Sprintf(MarketCapHeldBack+": the shares outstanding of %s %s are a %s", f.PeriodEnd, f.Period, why)
		}
	}
	for _, f := range sorted {
		sh, ok := f.Facts[shariah.SharesOutstanding]
		if !ok || seen[f.PeriodEnd] {
			continue
		}
		end, err := time.Parse("2006-01-02", f.PeriodEnd)
		if err != nil {
			continue
		}
		var close shariah.Price
		for _, b := range monthly {
			if b.Date.After(end) {
				break
			}
			close = b.Close
		}
		if close <= 0 {
			continue
		}
		seen[f.PeriodEnd] = true
		pts = append(pts, point{end: f.PeriodEnd, shares: sh.Value.Decimal, close: close,
			cap: sh.Value.Decimal.Mul(decimal.New(int64(close), -6))})
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].end < pts[j].end })
	if len(pts) < 2 {
		return ""
	}
	a, b := pts[len(pts)-2], pts[len(pts)-1]
	if !a.cap.IsPositive() || !b.cap.IsPositive() {
		return ""
	}
	three := decimal.NewFromInt(SuspectCapMove)
	if b.cap.GreaterThan(a.cap.Mul(three)) || a.cap.GreaterThan(b.cap.Mul(three)) {
		return fmt.Sprintf(MarketCapHeldBack+" as suspect: it moves from %s (period ending %s: %s shares x close %s) to %s (period ending %s: %s shares x close %s), more than %dx between consecutive periods",
			a.cap.Round(0).String(), a.end, a.shares.String(), a.close.String(), b.cap.Round(0).String(), b.end, b.shares.String(), b.close.String(), SuspectCapMove)
	}
	return ""
}
