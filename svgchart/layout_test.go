package svgchart_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/svgchart"
)

// box is the area a text element may cover once rendered.
type box struct {
	x0, y0, x1, y1 float64
	text           string
}

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// boundWidth is an upper bound of the rendered width of s: each character at least as wide as its
// advance in DejaVu Sans and Verdana (capitals 0.78 em, lower case and digits 0.64, m w % @ 0.98,
// narrow letters and punctuation 0.40), written here apart from the chart's own estimate; bold adds 10%.
func boundWidth(s string, size float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("ijlI.,:;|!'()[] ", r):
			w += 0.40
		case strings.ContainsRune("mwMW@%", r):
			w += 0.98
		case r >= 'A' && r <= 'Z':
			w += 0.78
		case r < 128:
			w += 0.64
		default:
			w += 1.0
		}
	}
	if bold {
		w *= 1.1
	}
	return w * size
}

// textBoxes gives the box of every <text> of a picture, from its x, y, inherited font size, weight
// and anchor (and rotate(-90)): from the baseline, 0.93 em up and 0.24 em down (DejaVu Sans' ascent
// and descent).
func textBoxes(t *testing.T, n node) []box {
	t.Helper()
	var out []box
	var visit func(n node, size float64, anchor string, bold bool)
	visit = func(n node, size float64, anchor string, bold bool) {
		if v := n.attr("font-size"); v != "" {
			size, _ = strconv.ParseFloat(v, 64)
		}
		if v := n.attr("text-anchor"); v != "" {
			anchor = v
		}
		if n.attr("font-weight") == "bold" {
			bold = true
		}
		if n.XMLName.Local == "text" {
			x, _ := strconv.ParseFloat(n.attr("x"), 64)
			y, _ := strconv.ParseFloat(n.attr("y"), 64)
			w := boundWidth(n.Text, size, bold)
			x0 := x
			switch anchor {
			case "middle":
				x0 = x - w/2
			case "end":
				x0 = x - w
			}
			b := box{x0, y - 0.93*size, x0 + w, y + 0.24*size, n.Text}
			switch tr := n.attr("transform"); tr {
			case "":
			case "rotate(-90)": // (x, y) -> (y, -x): the text runs upwards
				b = box{b.y0, -b.x1, b.y1, -b.x0, n.Text}
			default:
				t.Fatalf("text %q: transform %q not measured", n.Text, tr)
			}
			out = append(out, b)
		}
		for _, c := range n.Children {
			visit(c, size, anchor, bold)
		}
	}
	visit(n, 11, "start", false)
	return out
}

// assertNoOverlap fails when two texts' boxes overlap or one leaves the picture.
func assertNoOverlap(t *testing.T, name string, out []byte) node {
	t.Helper()
	n := parse(t, out)
	w, _ := strconv.ParseFloat(n.attr("width"), 64)
	h, _ := strconv.ParseFloat(n.attr("height"), 64)
	boxes := textBoxes(t, n)
	if len(boxes) < 5 {
		t.Fatalf("%s: %d texts", name, len(boxes))
	}
	for i, a := range boxes {
		if a.x0 < 0 || a.y0 < 0 || a.x1 > w || a.y1 > h {
			t.Errorf("%s: %q (%.1f,%.1f)-(%.1f,%.1f) leaves the %vx%v picture", name, a.text, a.x0, a.y0, a.x1, a.y1, w, h)
		}
		for _, b := range boxes[i+1:] {
			if a.overlaps(b) {
				t.Errorf("%s: %q (%.1f,%.1f)-(%.1f,%.1f) overlaps %q (%.1f,%.1f)-(%.1f,%.1f)", name,
					a.text, a.x0, a.y0, a.x1, a.y1, b.text, b.x0, b.y0, b.x1, b.y1)
			}
		}
	}
	return n
}

func fp(v float64) *float64 { return &v }

// point is a filed quarter with every ratio at v.
func point(period string, fy int, end string, v float64) insights.TrajectoryPoint {
	return insights.TrajectoryPoint{PeriodEnd: end, Period: period, FiscalYear: fy, DebtAssets: fp(v), CashAssets: fp(v / 2),
		LiquidityAssets: fp(v * 1.5), InterestRevenue: fp(v / 10), Source: shariah.SourceFiling}
}

// TestTrajectoryChartGaps: Q4 2024 then Q3 2025 (two quarters not filed) are three slots apart, the two
// missing quarters are shaded and named in the legend, and no ratio line crosses the gap.
func TestTrajectoryChartGaps(t *testing.T) {
	rs := ruleset(t, "spec")
	pts := []insights.TrajectoryPoint{point("Q3", 2024, "2024-09-30", 0.2), point("Q4", 2024, "2024-12-31", 0.21),
		point("Q3", 2025, "2025-09-30", 0.22), point("Q4", 2025, "2025-12-31", 0.23)}
	n := assertNoOverlap(t, "gaps", svgchart.Trajectory{Symbol: "EXA", Name: "Example Corp", Ruleset: "spec", Points: pts, Lines: insights.ThresholdLines(rs, "")}.Chart())
	gaps := n.find(func(m node) bool { return m.XMLName.Local == "rect" && m.attr("class") == "gap" })
	if len(gaps) != 2 || gaps[0].attr("data-quarter") != "Q1 2025" || gaps[1].attr("data-quarter") != "Q2 2025" {
		t.Fatalf("gap slots %+v", gaps)
	}
	note := n.find(func(m node) bool { return m.attr("class") == "gap-note" })
	if len(note) != 1 || note[0].Text != "No filing: Q1 2025, Q2 2025" {
		t.Fatalf("gap note %+v", note)
	}
	if title := n.Children[0].Text; !strings.Contains(title, "no filing: Q1 2025, Q2 2025") {
		t.Errorf("title %q does not name the gap", title)
	}
	// x of each quarter's dot (debt/assets)
	var xs []float64
	for _, c := range n.find(func(m node) bool {
		return m.XMLName.Local == "circle" && strings.HasPrefix(m.Children[0].Text, "Debt / assets")
	}) {
		x, _ := strconv.ParseFloat(c.attr("cx"), 64)
		xs = append(xs, x)
	}
	if len(xs) != 4 {
		t.Fatalf("%d debt dots", len(xs))
	}
	step := xs[1] - xs[0]
	if step <= 0 || math.Abs((xs[2]-xs[1])-3*step) > 0.02 || math.Abs((xs[3]-xs[2])-step) > 0.02 {
		t.Errorf("dots at %v: Q4 2024 to Q3 2025 should be three quarters apart", xs)
	}
	gx, _ := strconv.ParseFloat(gaps[0].attr("x"), 64)
	if gx <= xs[1] || gx >= xs[2] {
		t.Errorf("the gap at x=%v is not between Q4 2024 (%v) and Q3 2025 (%v)", gx, xs[1], xs[2])
	}
	for _, p := range n.find(func(m node) bool { return m.XMLName.Local == "path" && m.attr("class") == "ratio" }) {
		if c := strings.Count(p.attr("d"), "M"); c != 2 {
			t.Errorf("%s: %d segments across the gap, want 2: %s", p.attr("data-ratio"), c, p.attr("d"))
		}
	}
	// the sparkline breaks at the gap too
	spark := parse(t, svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: pts}.Sparkline(insights.RatioDebtAssets))
	if p := spark.find(func(m node) bool { return m.XMLName.Local == "path" }); len(p) != 1 || strings.Count(p[0].attr("d"), "M") != 2 {
		t.Errorf("sparkline across the gap: %+v", p)
	}
	// consecutive quarters: no gap, one segment
	n = parse(t, svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: pts[2:]}.Chart())
	if g := n.find(func(m node) bool { return m.attr("class") == "gap" || m.attr("class") == "gap-note" }); len(g) != 0 {
		t.Errorf("consecutive quarters drew a gap: %+v", g)
	}
}

// TestTrajectoryChartMarksIllustrativeQuarters: a quarter whose figures are illustrative has a hollow
// dot, and the legend and the title name it.
func TestTrajectoryChartMarksIllustrativeQuarters(t *testing.T) {
	pts := []insights.TrajectoryPoint{point("Q1", 2025, "2025-03-31", 0.2), point("Q2", 2025, "2025-06-30", 0.21)}
	pts[1].Source = shariah.SourceIllustrative
	n := parse(t, svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: pts}.Chart())
	note := n.find(func(m node) bool { return m.attr("class") == "mark-note" })
	if len(note) != 1 || !strings.Contains(note[0].Text, "illustrative") || !strings.HasSuffix(note[0].Text, "Q2 2025") {
		t.Fatalf("mark note %+v", note)
	}
	if !strings.Contains(n.Children[0].Text, "illustrative: Q2 2025") {
		t.Errorf("title %q", n.Children[0].Text)
	}
	hollow := n.find(func(m node) bool {
		return m.XMLName.Local == "circle" && m.attr("fill") == "#ffffff" && len(m.Children) > 0
	})
	if len(hollow) != 4 || !strings.Contains(hollow[0].Children[0].Text, "Q2 2025") || !strings.HasSuffix(hollow[0].Children[0].Text, "(illustrative)") {
		t.Errorf("hollow dots %+v", hollow)
	}
	pts[1].Source = shariah.SourceFiling
	if m := parse(t, svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: pts}.Chart()).find(func(m node) bool { return m.attr("class") == "mark-note" }); len(m) != 0 {
		t.Errorf("filed quarters marked: %+v", m)
	}
}

// TestTrajectoryChartLabelsNeverOverlap draws the longest labels the chart can meet, and asserts no two
// texts' conservative boxes overlap and none leaves the picture: a very long company name; every
// methodology's thresholds of every ruleset (the most labels right of the plot), squeezed to the bottom
// of the axis by a ratio far above them; twenty consecutive quarters; quarters named by their dates;
// quarters scattered over years (many gaps to name).
func TestTrajectoryChartLabelsNeverOverlap(t *testing.T) {
	long := strings.Repeat("Very Long Company Name Holdings International ", 5)
	var twenty, dated, scattered []insights.TrajectoryPoint
	for i := range 20 {
		twenty = append(twenty, point("Q"+strconv.Itoa(i%4+1), 2020+i/4, fmt.Sprintf("%d-%02d-28", 2020+i/4, 3*(i%4)+3), 0.1+0.01*float64(i)))
	}
	for i := range 8 {
		p := point("", 0, fmt.Sprintf("%d-%02d-30", 2018+i, 3*(i%4)+3), 0.3)
		dated = append(dated, p)
		scattered = append(scattered, point("Q"+strconv.Itoa(i%4+1), 2010+2*i, "", 0.2))
	}
	huge := []insights.TrajectoryPoint{point("Q1", 2025, "2025-03-31", 0.3), point("Q2", 2025, "2025-06-30", 6.0)}
	huge[1].Source = shariah.SourceIllustrative
	cases := map[string][]insights.TrajectoryPoint{"twenty": twenty, "dated": dated, "scattered": scattered, "huge": huge}
	n := 0
	for rsName, rs := range allRulesets(t) {
		methodologies := []string{""}
		for _, m := range rs.Methodologies {
			methodologies = append(methodologies, m.ID)
		}
		for _, m := range methodologies {
			for cname, pts := range cases {
				tr := svgchart.Trajectory{Symbol: "VERYLONGSYMBOL.XX", Name: long, Ruleset: rsName, Methodology: m, Points: pts, Lines: insights.ThresholdLines(rs, m)}
				assertNoOverlap(t, rsName+"/"+m+"/"+cname, tr.Chart())
				n++
			}
		}
	}
	// the threshold labels of the spec ruleset are many and squeezed to the bottom by the 600% ratio
	rs := ruleset(t, "spec")
	out := svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: huge, Lines: insights.ThresholdLines(rs, "")}.Chart()
	labels := parse(t, out).find(func(m node) bool { return m.attr("class") == "threshold-label" })
	if len(labels) < 6 {
		t.Fatalf("%d threshold labels: the case does not test crowding", len(labels))
	}
	scattered8 := parse(t, svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: scattered}.Chart())
	// Q1 2010, Q2 2012, ... Q4 2024: 60 quarters from the first to the last, 8 of them filed
	if g := scattered8.find(func(m node) bool { return m.attr("class") == "gap" }); len(g) != 60-8 {
		t.Errorf("%d gap slots over 8 quarters from Q1 2010 to Q4 2024, want 52", len(g))
	}
	t.Logf("%d charts checked", n)
}

func allRulesets(t *testing.T) screening.Rulesets {
	t.Helper()
	rs := screening.Rulesets{}
	for _, name := range []string{"spec", "aaoifi-ss21", "djim-2026", "ftse-2024", "msci-2025", "msci-mseries", "sc-malaysia", "sp-2014", "sp-2023"} {
		rs[name] = ruleset(t, name)
	}
	return rs
}
