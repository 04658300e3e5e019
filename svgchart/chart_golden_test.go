package svgchart_test

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/svgchart"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/chart_golden.txt from the current Chart")

// goldenCharts are the charts whose bytes TestTrajectoryChartGolden pins: no quarters, one quarter,
// FTSE's lines (one partial), every methodology's lines merged, gaps, an illustrative quarter, crowded
// threshold labels, a negative ratio, a ratio with no value, a subset of ratios with no threshold, and
// every ruleset's every methodology over the layout cases (as one sweep).
func goldenCharts(t *testing.T) map[string][]byte {
	t.Helper()
	spec, ftse := ruleset(t, "spec"), ruleset(t, "ftse-2024")
	gaps := []insights.TrajectoryPoint{point("Q3", 2024, "2024-09-30", 0.2), point("Q4", 2024, "2024-12-31", 0.21),
		point("Q3", 2025, "2025-09-30", 0.22), point("Q4", 2025, "2025-12-31", 0.23)}
	marked := []insights.TrajectoryPoint{point("Q1", 2025, "2025-03-31", 0.2), point("Q2", 2025, "2025-06-30", 0.21), point("Q3", 2025, "2025-09-30", 0.19)}
	marked[1].Source, marked[2].Source = shariah.SourceIllustrative, shariah.SourceIllustrative
	huge := []insights.TrajectoryPoint{point("Q1", 2025, "2025-03-31", 0.3), point("Q2", 2025, "2025-06-30", 6.0)}
	huge[1].Source = shariah.SourceIllustrative
	negative := []insights.TrajectoryPoint{point("Q1", 2025, "2025-03-31", 0.1), point("Q2", 2025, "2025-06-30", -0.15)}
	noInterest := quarters(0.1, 0.2, 0.3)
	for i := range noInterest {
		noInterest[i].InterestRevenue = nil
	}
	var twenty, dated, scattered []insights.TrajectoryPoint
	for i := range 20 {
		twenty = append(twenty, point("Q"+strconv.Itoa(i%4+1), 2020+i/4, fmt.Sprintf("%d-%02d-28", 2020+i/4, 3*(i%4)+3), 0.1+0.01*float64(i)))
	}
	for i := range 8 {
		dated = append(dated, point("", 0, fmt.Sprintf("%d-%02d-30", 2018+i, 3*(i%4)+3), 0.3))
		scattered = append(scattered, point("Q"+strconv.Itoa(i%4+1), 2010+2*i, "", 0.2))
	}
	out := map[string][]byte{
		"empty":         svgchart.Trajectory{Symbol: "MSFT", Name: "Microsoft", Ruleset: "spec"}.Chart(),
		"one":           svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: quarters(0.2), Lines: insights.ThresholdLines(spec, "")}.Chart(),
		"ftse":          svgchart.Trajectory{Symbol: "EXA", Name: "Example Corp", Ruleset: ftse.Name, Methodology: "FTSE", Points: quarters(0.21, 0.24, 0.27, 0.30), Lines: insights.ThresholdLines(ftse, "ftse")}.Chart(),
		"every":         svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: quarters(0.1, 0.12), Lines: insights.ThresholdLines(spec, "")}.Chart(),
		"gaps":          svgchart.Trajectory{Symbol: "EXA", Name: "Example Corp", Ruleset: "spec", Points: gaps, Lines: insights.ThresholdLines(spec, "")}.Chart(),
		"illustrative":  svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: marked, Lines: insights.ThresholdLines(spec, "")}.Chart(),
		"crowded":       svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: huge, Lines: insights.ThresholdLines(spec, "")}.Chart(),
		"negative":      svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: negative, Lines: insights.ThresholdLines(spec, "")}.Chart(),
		"no-interest":   svgchart.Trajectory{Symbol: "EXA", Ruleset: ftse.Name, Methodology: "FTSE", Points: noInterest, Lines: insights.ThresholdLines(ftse, "ftse")}.Chart(),
		"no-thresholds": svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: quarters(0.2, 0.3), Ratios: []string{insights.RatioCashAssets}}.Chart(),
	}
	long := strings.Repeat("Very Long Company Name Holdings International ", 5)
	var sweep []byte
	rsets := allRulesets(t)
	names := make([]string, 0, len(rsets))
	for name := range rsets {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, rsName := range names {
		rs := rsets[rsName]
		methodologies := []string{""}
		for _, m := range rs.Methodologies {
			methodologies = append(methodologies, m.ID)
		}
		for _, m := range methodologies {
			for _, pts := range [][]insights.TrajectoryPoint{twenty, dated, scattered, huge, marked, gaps} {
				tr := svgchart.Trajectory{Symbol: "VERYLONGSYMBOL.XX", Name: long, Ruleset: rsName, Methodology: m, Points: pts, Lines: insights.ThresholdLines(rs, m)}
				sweep = append(sweep, tr.Chart()...)
			}
		}
	}
	out["sweep"] = sweep
	return out
}

// TestTrajectoryChartGolden: Chart's bytes for the golden inputs are those recorded in
// testdata/chart_golden.txt (each picture's SHA-256 and length). A deliberate change to the picture
// rewrites the file with -update; a refactoring must leave it as it is.
func TestTrajectoryChartGolden(t *testing.T) {
	charts := goldenCharts(t)
	names := make([]string, 0, len(charts))
	for name := range charts {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		sum := sha256.Sum256(charts[name])
		fmt.Fprintf(&b, "%s %s %d\n", name, hex.EncodeToString(sum[:]), len(charts[name]))
	}
	path := filepath.Join("testdata", "chart_golden.txt")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("Chart's bytes changed:\n got %s\nwant %s", got, want)
	}
}
