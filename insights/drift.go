package insights

import (
	"math"
	"sort"
)

// Drift directions: a ratio rising toward a threshold it still passes, or one that crossed it within
// the window.
const (
	DriftToward = "toward"
	DriftAcross = "across"
)

// The drift window: how many of a company's latest filed quarters are read (quarters=).
const (
	DriftQuartersMin     = 2
	DriftQuartersMax     = 8
	DriftQuartersDefault = 8
)

// DriftMinRises is how many consecutive quarter-on-quarter rises, up to the latest quarter, make a
// ratio that still passes its line count as drifting toward it. One rise is the ordinary noise of a
// balance sheet (a quarter's cash pile before a dividend); two in a row, three quarters climbing, is a
// direction an analyst wants to see.
const DriftMinRises = 2

// DriftPoint is one quarter of a drifting ratio, in basis points.
type DriftPoint struct {
	PeriodEnd string  `json:"period_end"`
	ValueBP   float64 `json:"value_bp"`
}

// DriftSignal is one ratio of a company drifting against one threshold line.
type DriftSignal struct {
	Line      ThresholdLine
	Direction string // DriftToward or DriftAcross
	// QuartersOfDrift counts the consecutive most recent quarter-on-quarter rises (0 when the latest
	// quarter did not rise, which an across signal allows: it crossed, then eased but still breaches).
	QuartersOfDrift int
	FirstBP         float64 // the window's first value of the ratio (0.1 bp)
	LatestBP        float64
	// DistancePoints is the threshold minus the latest value in percentage points (0.01): how far the
	// ratio may still rise; negative once across.
	DistancePoints  float64
	LatestPeriodEnd string
	Series          []DriftPoint // the quarters that have the ratio, oldest first
}

// RatioOf is a trajectory ratio of one quarter by name (nil when the filings did not allow it).
func (p TrajectoryPoint) RatioOf(ratio string) *float64 {
	switch ratio {
	case RatioDebtAssets:
		return p.DebtAssets
	case RatioCashAssets:
		return p.CashAssets
	case RatioLiquidityAssets:
		return p.LiquidityAssets
	case RatioInterestRevenue:
		return p.InterestRevenue
	}
	return nil
}

// TrajectoryRatios are the ratios of a TrajectoryPoint, in their display order.
var TrajectoryRatios = []string{RatioDebtAssets, RatioCashAssets, RatioLiquidityAssets, RatioInterestRevenue}

// DriftOf finds the lines a company's quarterly trajectory (oldest first) drifts against. A ratio is
// read over the quarters that have it (a quarter whose filing did not allow the ratio is skipped, not a
// break in the series); with fewer than two such quarters it has no direction. A company counts as
// drifting on a line when either
//   - across: the latest quarter breaches the line (ThresholdLine.Breaches) and an earlier quarter of
//     the window passed it, or
//   - toward: the latest quarter passes the line and the ratio rose in each of at least DriftMinRises
//     consecutive quarters up to it.
//
// A ratio that breached throughout the window, fell, stayed flat or rose only once is not drifting. A
// partial line (interest standing for interest plus impure revenue) is read the same way: the part
// crossing the line is a breach of the whole, and the part approaching it is the whole approaching
// faster; the signal keeps the line's Partial flag so readers know.
func DriftOf(pts []TrajectoryPoint, lines []ThresholdLine) []DriftSignal {
	var out []DriftSignal
	for _, l := range lines {
		var vals []float64
		var series []DriftPoint
		for _, p := range pts {
			if v := p.RatioOf(l.Ratio); v != nil {
				vals = append(vals, *v)
				series = append(series, DriftPoint{PeriodEnd: p.PeriodEnd, ValueBP: roundTo(*v*10000, 1)})
			}
		}
		if len(vals) < 2 {
			continue
		}
		last := len(vals) - 1
		rises := 0
		for i := last; i > 0 && vals[i] > vals[i-1]; i-- {
			rises++
		}
		dir := ""
		if l.Breaches(vals[last]) {
			for _, v := range vals[:last] {
				if !l.Breaches(v) {
					dir = DriftAcross
					break
				}
			}
		} else if rises >= DriftMinRises {
			dir = DriftToward
		}
		if dir == "" {
			continue
		}
		threshold := l.ThresholdBP.InexactFloat64()
		out = append(out, DriftSignal{Line: l, Direction: dir, QuartersOfDrift: rises, FirstBP: series[0].ValueBP,
			LatestBP: series[last].ValueBP, DistancePoints: roundTo((threshold-vals[last]*10000)/100, 2),
			LatestPeriodEnd: series[last].PeriodEnd, Series: series})
	}
	return out
}

// NearestPerRatio keeps, of a company's signals, one per ratio: the line it is nearest to (smallest
// distance either side; on a tie across before toward, then the line's order). Without a methodology
// every methodology's line is read, and a debt ratio climbing toward 30% (AAOIFI) and 33% (FTSE, MSCI)
// is one company with one problem, shown against the line it meets first; with a methodology, its one
// line per ratio is kept as it is.
func NearestPerRatio(signals []DriftSignal) []DriftSignal {
	best := map[string]int{}
	var order []string
	for i, s := range signals {
		j, ok := best[s.Line.Ratio]
		if !ok {
			best[s.Line.Ratio] = i
			order = append(order, s.Line.Ratio)
			continue
		}
		d, dj := math.Abs(s.DistancePoints), math.Abs(signals[j].DistancePoints)
		if d < dj || (d == dj && s.Direction == DriftAcross && signals[j].Direction != DriftAcross) {
			best[s.Line.Ratio] = i
		}
	}
	out := make([]DriftSignal, 0, len(order))
	for _, r := range order {
		out = append(out, signals[best[r]])
	}
	return out
}

// SortDriftCompanies orders drifting companies by distance to their line, closest first (either side:
// a ratio 0.2 points over is as close as one 0.2 points under), then by symbol and ratio.
func SortDriftCompanies(cs []DriftCompany) {
	sort.SliceStable(cs, func(i, j int) bool {
		di, dj := math.Abs(cs[i].DistancePoints), math.Abs(cs[j].DistancePoints)
		if di != dj {
			return di < dj
		}
		if cs[i].Symbol != cs[j].Symbol {
			return cs[i].Symbol < cs[j].Symbol
		}
		return cs[i].Ratio < cs[j].Ratio
	})
}

func roundTo(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
