package insights_test

import (
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/screening"
)

// quartersOf builds a trajectory (oldest first) from debt/assets values in percent; a negative value is
// a quarter whose filing did not allow the ratio.
func quartersOf(debtPct ...float64) []insights.TrajectoryPoint {
	var pts []insights.TrajectoryPoint
	for i, v := range debtPct {
		p := insights.TrajectoryPoint{PeriodEnd: fmt.Sprintf("%d-%02d-30", 2024+i/4, 3*(i%4)+3), Period: fmt.Sprintf("Q%d", i%4+1), Source: shariah.SourceFiling}
		if v >= 0 {
			f := v / 100
			p.DebtAssets = &f
		}
		pts = append(pts, p)
	}
	return pts
}

func line(ratio, methodology string, bp int64, partial bool) insights.ThresholdLine {
	return insights.ThresholdLine{Ratio: ratio, Methodology: methodology, Name: methodology, RuleID: "r", ThresholdBP: decimal.NewFromInt(bp),
		Comparator: screening.CmpLT, Partial: partial}
}

func TestDriftOf(t *testing.T) {
	t.Parallel()
	debt33 := line(insights.RatioDebtAssets, "ftse", 3300, false)
	type want struct {
		dir          string
		rises        int
		first, last  float64
		distance     float64
		latestPeriod string
		points       int
	}
	cases := []struct {
		name  string
		pts   []insights.TrajectoryPoint
		lines []insights.ThresholdLine
		want  []want // nil: not drifting
	}{
		{"toward: three rises, still under", quartersOf(20, 25, 27.105, 29.501), []insights.ThresholdLine{debt33},
			[]want{{insights.DriftToward, 3, 2000, 2950.1, 3.50, "2024-12-30", 4}}},
		{"toward: two rises are enough", quartersOf(30, 20, 25, 27), []insights.ThresholdLine{debt33},
			[]want{{insights.DriftToward, 2, 3000, 2700, 6, "2024-12-30", 4}}},
		{"one rise is noise", quartersOf(20, 19, 25), []insights.ThresholdLine{debt33}, nil},
		{"across: an earlier quarter passed, the latest breaches", quartersOf(30, 31, 32.9, 34), []insights.ThresholdLine{debt33},
			[]want{{insights.DriftAcross, 3, 3000, 3400, -1, "2024-12-30", 4}}},
		{"across at the line exactly (lt: at the line fails)", quartersOf(32, 33), []insights.ThresholdLine{debt33},
			[]want{{insights.DriftAcross, 1, 3200, 3300, 0, "2024-06-30", 2}}},
		{"across, then eased but still over", quartersOf(30, 36, 35), []insights.ThresholdLine{debt33},
			[]want{{insights.DriftAcross, 0, 3000, 3500, -2, "2024-09-30", 3}}},
		{"over the line throughout: not drifting", quartersOf(34, 35, 36, 37), []insights.ThresholdLine{debt33}, nil},
		{"away: falling", quartersOf(32, 30, 28, 25), []insights.ThresholdLine{debt33}, nil},
		{"away: crossed back under", quartersOf(31, 35, 32), []insights.ThresholdLine{debt33}, nil},
		{"flat", quartersOf(25, 25, 25, 25), []insights.ThresholdLine{debt33}, nil},
		{"fewer quarters than asked: two are read", quartersOf(32.5, 33.5), []insights.ThresholdLine{debt33},
			[]want{{insights.DriftAcross, 1, 3250, 3350, -0.5, "2024-06-30", 2}}},
		{"one quarter: no direction", quartersOf(34), []insights.ThresholdLine{debt33}, nil},
		{"missing ratios are skipped, not breaks", quartersOf(20, -1, 24, -1, 28), []insights.ThresholdLine{debt33},
			[]want{{insights.DriftToward, 2, 2000, 2800, 5, "2025-03-30", 3}}},
		{"a ratio never on file", quartersOf(-1, -1, -1), []insights.ThresholdLine{debt33}, nil},
		{"a line of another ratio", quartersOf(20, 25, 30), []insights.ThresholdLine{line(insights.RatioCashAssets, "ftse", 3300, false)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := insights.DriftOf(c.pts, c.lines)
			if len(got) != len(c.want) {
				t.Fatalf("%d signals, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				g := got[i]
				if g.Direction != w.dir || g.QuartersOfDrift != w.rises || g.FirstBP != w.first || g.LatestBP != w.last ||
					g.DistancePoints != w.distance || g.LatestPeriodEnd != w.latestPeriod || len(g.Series) != w.points {
					t.Errorf("got %s %d first %v latest %v distance %v at %s, %d points; want %+v", g.Direction, g.QuartersOfDrift,
						g.FirstBP, g.LatestBP, g.DistancePoints, g.LatestPeriodEnd, len(g.Series), w)
				}
			}
		})
	}
}

// The revenue line of a rule on impure revenue plus interest reads the interest part alone: it drifts
// as any line does and keeps its Partial flag.
func TestDriftOfPartialRevenueLine(t *testing.T) {
	t.Parallel()
	var pts []insights.TrajectoryPoint
	for i, v := range []float64{0.030, 0.038, 0.045, 0.049} {
		v := v
		pts = append(pts, insights.TrajectoryPoint{PeriodEnd: fmt.Sprintf("2025-%02d-30", 3*i+3), InterestRevenue: &v})
	}
	got := insights.DriftOf(pts, []insights.ThresholdLine{line(insights.RatioInterestRevenue, "ftse", 500, true)})
	if len(got) != 1 || got[0].Direction != insights.DriftToward || !got[0].Line.Partial || got[0].DistancePoints != 0.1 || got[0].QuartersOfDrift != 3 {
		t.Fatalf("partial line: %+v", got)
	}
}

// With every methodology's lines a company is shown once per ratio, against the line it is nearest to.
func TestNearestPerRatio(t *testing.T) {
	t.Parallel()
	pts := quartersOf(27, 29, 31, 32.5)
	lines := []insights.ThresholdLine{line(insights.RatioDebtAssets, "aaoifi", 3000, false), line(insights.RatioDebtAssets, "ftse", 3333, false),
		line(insights.RatioDebtAssets, "far", 5000, false)}
	all := insights.DriftOf(pts, lines)
	if len(all) != 3 {
		t.Fatalf("signals %+v", all)
	}
	got := insights.NearestPerRatio(all)
	if len(got) != 1 || got[0].Line.Methodology != "ftse" || got[0].DistancePoints != 0.83 {
		t.Fatalf("nearest: %+v", got)
	}
	// Equally far either side: the crossing wins.
	tie := insights.NearestPerRatio(insights.DriftOf(quartersOf(28, 30, 31), []insights.ThresholdLine{
		line(insights.RatioDebtAssets, "under", 3200, false), line(insights.RatioDebtAssets, "over", 3000, false)}))
	if len(tie) != 1 || tie[0].Line.Methodology != "over" || tie[0].Direction != insights.DriftAcross {
		t.Fatalf("tie: %+v", tie)
	}
}

func TestSortDriftCompaniesClosestFirstEitherSide(t *testing.T) {
	t.Parallel()
	cs := []insights.DriftCompany{{Symbol: "A", DistancePoints: 3}, {Symbol: "B", DistancePoints: -0.5}, {Symbol: "C", DistancePoints: 0.5},
		{Symbol: "D", DistancePoints: -2}}
	insights.SortDriftCompanies(cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.Symbol)
	}
	if fmt.Sprint(got) != "[B C D A]" {
		t.Fatalf("order %v", got)
	}
}

// MovedRatios: the ratios of the methodologies whose verdict changed, crossed ones first; unchanged and
// unknown-in-both ratios are not listed; without a changed verdict every methodology's moved ratios.
func TestMovedRatios(t *testing.T) {
	t.Parallel()
	n := func(s string) *shariah.Number { v := shariah.NewNumber(decimal.RequireFromString(s)); return &v }
	yes, no := true, false
	ratio := func(id string, v *shariah.Number, pass *bool) screening.RatioResult {
		return screening.RatioResult{ID: id, Value: v, Pass: pass, ThresholdBP: shariah.NewNumber(decimal.NewFromInt(3333))}
	}
	res := func(ftseVerdict string, debt, cash *shariah.Number, debtPass *bool, aaoifiDebt *shariah.Number) *screening.Result {
		return &screening.Result{ByMethodology: map[string]screening.MethodologyResult{
			"FTSE":   {ID: "ftse", Verdict: ftseVerdict, Ratios: []screening.RatioResult{ratio("cash", cash, &yes), ratio("debt", debt, debtPass), ratio("unknown", nil, nil)}},
			"AAOIFI": {ID: "aaoifi", Verdict: "NON_COMPLIANT", Ratios: []screening.RatioResult{ratio("debt", aaoifiDebt, &no)}},
		}}
	}
	a := res("COMPLIANT", n("0.30"), n("0.10"), &yes, n("0.40"))
	b := res("NON_COMPLIANT", n("0.35"), n("0.12"), &no, n("0.45"))
	got := bulk.MovedRatios(a, b)
	if len(got) != 2 || got[0].Ratio != "debt" || !got[0].Crossed || got[0].Methodology != "ftse" || got[0].From.String() != "0.3" ||
		got[0].To.String() != "0.35" || got[1].Ratio != "cash" || got[1].Crossed {
		t.Fatalf("moved %+v", got)
	}
	// No verdict changed: every methodology's moved ratios.
	c := res("COMPLIANT", n("0.30"), n("0.10"), &yes, n("0.45"))
	if got := bulk.MovedRatios(a, c); len(got) != 1 || got[0].Methodology != "aaoifi" {
		t.Fatalf("no verdict change: %+v", got)
	}
	if got := bulk.MovedRatios(nil, b); got == nil || len(got) != 0 {
		t.Fatalf("an errored run's item: %+v", got)
	}
}
