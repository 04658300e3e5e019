package svgchart_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/svgchart"
)

// node is a parsed SVG element: its name, attributes, text and children.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// walk visits every element, depth first.
func (n node) walk(f func(node)) {
	f(n)
	for _, c := range n.Children {
		c.walk(f)
	}
}

func (n node) find(f func(node) bool) []node {
	var out []node
	n.walk(func(m node) {
		if f(m) {
			out = append(out, m)
		}
	})
	return out
}

// parse checks the bytes are one well-formed SVG document (strict XML, every token read) and returns it.
func parse(t *testing.T, b []byte) node {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, b)
		}
	}
	var n node
	if err := xml.Unmarshal(b, &n); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	if n.XMLName.Local != "svg" || n.XMLName.Space != "http://www.w3.org/2000/svg" || n.attr("role") != "img" || n.attr("aria-label") == "" {
		t.Fatalf("root %v role %q aria-label %q", n.XMLName, n.attr("role"), n.attr("aria-label"))
	}
	if len(n.Children) == 0 || n.Children[0].XMLName.Local != "title" || n.Children[0].Text != n.attr("aria-label") {
		t.Fatalf("the first child is not a <title> equal to the aria-label: %s", b)
	}
	if bytes.Contains(b, []byte("<script")) || bytes.Contains(bytes.ToLower(b), []byte(" on")) && bytes.Contains(bytes.ToLower(b), []byte("onload=")) {
		t.Fatalf("script in the picture: %s", b)
	}
	return n
}

// luminance and contrast follow WCAG 2.1's definitions.
func luminance(hex string) float64 {
	c := func(i int) float64 {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*c(0) + 0.7152*c(1) + 0.0722*c(2)
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// TestBadge: every verdict gives a well-formed badge with its words, its colours (at least 4.5:1
// against their text) and a title naming the symbol and the methodology; the same input gives the same
// bytes.
func TestBadge(t *testing.T) {
	for _, c := range []struct{ verdict, text string }{
		{"COMPLIANT", "Compliant"}, {"NON_COMPLIANT", "Non-compliant"}, {"QUESTIONABLE", "Questionable"},
		{"INSUFFICIENT_DATA", "Insufficient data"}, {svgchart.NotScreened, "Not screened"},
	} {
		b := svgchart.Badge{Symbol: "AAPL", Verdict: c.verdict, Methodology: "FTSE", Ruleset: "spec", AsOf: "2025-11-03"}
		out := b.SVG()
		n := parse(t, out)
		title := n.Children[0].Text
		if !strings.HasPrefix(title, "AAPL: "+c.text) {
			t.Errorf("%s: title %q", c.verdict, title)
		}
		if c.verdict != svgchart.NotScreened && !strings.Contains(title, "under FTSE") {
			t.Errorf("%s: title %q does not name the methodology", c.verdict, title)
		}
		col := svgchart.VerdictColors(c.verdict)
		var verdictText, verdictRect []node
		verdictText = n.find(func(m node) bool { return m.XMLName.Local == "text" && m.attr("class") == "verdict" })
		verdictRect = n.find(func(m node) bool { return m.XMLName.Local == "rect" && m.attr("class") == "verdict" })
		if len(verdictText) != 1 || verdictText[0].Text != c.text || verdictText[0].attr("fill") != col.Text {
			t.Errorf("%s: verdict text %+v", c.verdict, verdictText)
		}
		if len(verdictRect) != 1 || verdictRect[0].attr("fill") != col.Fill {
			t.Errorf("%s: verdict rect %+v", c.verdict, verdictRect)
		}
		if r := contrast(col.Fill, col.Text); r < 4.5 {
			t.Errorf("%s: contrast %.2f:1 under 4.5:1", c.verdict, r)
		}
		if !bytes.Equal(out, b.SVG()) {
			t.Errorf("%s: two renderings differ", c.verdict)
		}
	}
	seen := map[string]string{}
	for _, v := range []string{"COMPLIANT", "NON_COMPLIANT", "QUESTIONABLE", "INSUFFICIENT_DATA", svgchart.NotScreened} {
		f := svgchart.VerdictColors(v).Fill
		if other, ok := seen[f]; ok {
			t.Errorf("%s and %s share the colour %s", v, other, f)
		}
		seen[f] = v
	}
}

// TestHostileNamesAreEscaped: a name or symbol with markup stays text.
func TestHostileNamesAreEscaped(t *testing.T) {
	evil := `<script>alert("x")</script>&"'`
	pts := quarters(0.2, 0.21)
	for name, out := range map[string][]byte{
		"badge":     svgchart.Badge{Symbol: evil, Verdict: "COMPLIANT", Methodology: evil, Ruleset: "spec"}.SVG(),
		"chart":     svgchart.Trajectory{Symbol: evil, Name: evil, Ruleset: "spec", Points: pts}.Chart(),
		"empty":     svgchart.Trajectory{Symbol: evil, Name: evil, Ruleset: "spec"}.Chart(),
		"sparkline": svgchart.Trajectory{Symbol: evil, Ruleset: "spec", Points: pts}.Sparkline(insights.RatioDebtAssets),
	} {
		n := parse(t, out)
		if !strings.Contains(n.Children[0].Text, evil) {
			t.Errorf("%s: the title lost the name: %q", name, n.Children[0].Text)
		}
		if len(n.find(func(m node) bool { return m.XMLName.Local == "script" })) > 0 {
			t.Errorf("%s: a script element got in", name)
		}
	}
}

// quarters builds a trajectory whose debt/assets takes the values given; cash/assets is a tenth of it,
// liquidity/assets twice, interest/revenue missing in the second quarter.
func quarters(debt ...float64) []insights.TrajectoryPoint {
	var out []insights.TrajectoryPoint
	for i, d := range debt {
		d := d
		c, l, in := d/10, d*2, 0.01*float64(i+1)
		p := insights.TrajectoryPoint{PeriodEnd: "2024-0" + strconv.Itoa(i+1) + "-28", Period: "Q" + strconv.Itoa(i%4+1), FiscalYear: 2024 + i/4,
			DebtAssets: &d, CashAssets: &c, LiquidityAssets: &l, InterestRevenue: &in, Source: "filing"}
		if i == 1 {
			p.InterestRevenue = nil
		}
		out = append(out, p)
	}
	return out
}

func ruleset(t *testing.T, name string) *screening.Ruleset {
	t.Helper()
	rs, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rs[name]
	if !ok {
		t.Fatalf("no ruleset %s", name)
	}
	return r
}

// axis reads the y axis's range from its tick labels: the lowest at PlotBottom, the highest at PlotTop.
func axis(t *testing.T, n node) (lo, hi float64) {
	t.Helper()
	ticks := n.find(func(m node) bool { return m.XMLName.Local == "text" && m.attr("class") == "tick" })
	if len(ticks) < 2 {
		t.Fatalf("%d ticks", len(ticks))
	}
	lo, _ = strconv.ParseFloat(ticks[0].attr("data-value"), 64)
	hi, _ = strconv.ParseFloat(ticks[len(ticks)-1].attr("data-value"), 64)
	if want := strconv.FormatFloat(hi*100, 'f', 1, 64) + "%"; ticks[len(ticks)-1].Text != want {
		t.Fatalf("top tick %q, its value %v", ticks[len(ticks)-1].Text, hi)
	}
	return lo, hi
}

// TestTrajectoryChartThresholdLines: FTSE's lines sit where the axis puts their thresholds, the partial
// revenue line is dashed and the legend says why, every ratio is a path, and a missing quarter breaks the
// interest line.
func TestTrajectoryChartThresholdLines(t *testing.T) {
	rs := ruleset(t, "ftse-2024")
	tr := svgchart.Trajectory{Symbol: "EXA", Name: "Example Corp", Ruleset: rs.Name, Methodology: "FTSE",
		Points: quarters(0.21, 0.24, 0.27, 0.30), Lines: insights.ThresholdLines(rs, "ftse")}
	out := tr.Chart()
	n := parse(t, out)
	if !bytes.Equal(out, tr.Chart()) {
		t.Fatal("two renderings differ")
	}
	title := n.Children[0].Text
	for _, w := range []string{"Example Corp (EXA)", "4 quarters", "FTSE thresholds"} {
		if !strings.Contains(title, w) {
			t.Errorf("title %q lacks %q", title, w)
		}
	}
	lo, hi := axis(t, n)
	// liquidity reaches 0.60: the axis must hold it and FTSE's 50% line
	if lo != 0 || hi < 0.6 || hi > 0.8 {
		t.Fatalf("axis %v..%v", lo, hi)
	}
	lines := n.find(func(m node) bool { return m.XMLName.Local == "line" && m.attr("class") == "threshold" })
	want := map[string]struct {
		bp      float64
		partial bool
	}{
		insights.RatioDebtAssets: {3333.3, false}, insights.RatioCashAssets: {3333.3, false},
		insights.RatioLiquidityAssets: {5000, false}, insights.RatioInterestRevenue: {500, true},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d threshold lines, want %d", len(lines), len(want))
	}
	for _, l := range lines {
		w := want[l.attr("data-ratio")]
		if bp, _ := strconv.ParseFloat(l.attr("data-threshold-bp"), 64); bp != w.bp {
			t.Errorf("%s: threshold %v bp, want %v", l.attr("data-ratio"), bp, w.bp)
		}
		expect := svgchart.PlotBottom - (w.bp/10000-lo)/(hi-lo)*(svgchart.PlotBottom-svgchart.PlotTop)
		for _, a := range []string{"y1", "y2"} {
			y, _ := strconv.ParseFloat(l.attr(a), 64)
			if math.Abs(y-expect) > 0.01 {
				t.Errorf("%s: %s=%v, want %.2f (threshold %v bp on %v..%v)", l.attr("data-ratio"), a, y, expect, w.bp, lo, hi)
			}
		}
		if dashed := l.attr("stroke-dasharray") != ""; dashed != w.partial {
			t.Errorf("%s: dashed %v, partial %v", l.attr("data-ratio"), dashed, w.partial)
		}
	}
	if notes := n.find(func(m node) bool { return m.attr("class") == "partial-note" }); len(notes) != 1 || !strings.Contains(notes[0].Text, "impure revenue") {
		t.Errorf("the legend does not explain the dashed line: %+v", notes)
	}
	paths := n.find(func(m node) bool { return m.XMLName.Local == "path" && m.attr("class") == "ratio" })
	if len(paths) != 4 {
		t.Fatalf("%d ratio paths", len(paths))
	}
	for _, p := range paths {
		// debt/assets is 0.30 in the last quarter: its last point is at the axis's position for 0.30
		if p.attr("data-ratio") == insights.RatioDebtAssets {
			f := strings.Fields(p.attr("d"))
			y, _ := strconv.ParseFloat(f[len(f)-1], 64)
			if expect := svgchart.PlotBottom - (0.30-lo)/(hi-lo)*(svgchart.PlotBottom-svgchart.PlotTop); math.Abs(y-expect) > 0.01 {
				t.Errorf("debt/assets last point y=%v, want %.2f", y, expect)
			}
		}
		if p.attr("data-ratio") == insights.RatioInterestRevenue && strings.Count(p.attr("d"), "M") != 2 {
			t.Errorf("interest/revenue with a missing quarter: %q, want two segments", p.attr("d"))
		}
	}
	for _, q := range []string{"Q1 2024", "Q4 2024"} {
		if len(n.find(func(m node) bool { return m.XMLName.Local == "text" && m.Text == q })) != 1 {
			t.Errorf("no x label %q", q)
		}
	}
}

// TestTrajectoryChartEveryMethodology: with no methodology, methodologies sharing a threshold share a
// line whose label names them all.
func TestTrajectoryChartEveryMethodology(t *testing.T) {
	rs := ruleset(t, "spec")
	n := parse(t, svgchart.Trajectory{Symbol: "EXA", Ruleset: "spec", Points: quarters(0.1, 0.12), Lines: insights.ThresholdLines(rs, "")}.Chart())
	revenue := n.find(func(m node) bool {
		return m.XMLName.Local == "line" && m.attr("class") == "threshold" && m.attr("data-ratio") == insights.RatioInterestRevenue
	})
	if len(revenue) != 1 {
		t.Fatalf("%d interest/revenue lines, want the five methodologies' 5%% merged into one", len(revenue))
	}
	labels := n.find(func(m node) bool { return m.attr("class") == "threshold-label" && strings.HasSuffix(m.Text, " 5%") })
	if len(labels) != 1 || !strings.Contains(labels[0].Text, "5 methodologies") || !strings.Contains(revenue[0].Children[0].Text, "AAOIFI, DJIM, FTSE, MSCI, S&P: 5%") {
		t.Errorf("merged label %+v", labels)
	}
}

// TestTrajectoryChartNoQuarters: nothing filed gives a small picture that says so.
func TestTrajectoryChartNoQuarters(t *testing.T) {
	n := parse(t, svgchart.Trajectory{Symbol: "MSFT", Ruleset: "spec"}.Chart())
	if !strings.Contains(n.Children[0].Text, "no filed quarters") {
		t.Fatalf("title %q", n.Children[0].Text)
	}
}

// TestSparkline: one ratio and its threshold, the title carrying the first and latest values.
func TestSparkline(t *testing.T) {
	rs := ruleset(t, "ftse-2024")
	tr := svgchart.Trajectory{Symbol: "EXA", Ruleset: rs.Name, Methodology: "FTSE", Points: quarters(0.21, 0.24, 0.27, 0.30), Lines: insights.ThresholdLines(rs, "ftse")}
	out := tr.Sparkline(insights.RatioDebtAssets)
	n := parse(t, out)
	if n.attr("width") != strconv.Itoa(svgchart.SparkWidth) || n.attr("height") != strconv.Itoa(svgchart.SparkHeight) {
		t.Fatalf("size %sx%s", n.attr("width"), n.attr("height"))
	}
	if title := n.Children[0].Text; !strings.Contains(title, "21.0% to 30.0% over 4 quarters") || !strings.Contains(title, "FTSE 33.333%") {
		t.Errorf("title %q", title)
	}
	th := n.find(func(m node) bool { return m.attr("class") == "threshold" })
	paths := n.find(func(m node) bool { return m.XMLName.Local == "path" })
	if len(th) != 1 || th[0].attr("data-threshold-bp") != "3333.3" || len(paths) != 1 || paths[0].attr("data-ratio") != insights.RatioDebtAssets {
		t.Errorf("thresholds %+v paths %+v", th, paths)
	}
	// the threshold is above the line: a smaller y in SVG's downward coordinates
	ty, _ := strconv.ParseFloat(th[0].attr("y1"), 64)
	f := strings.Fields(paths[0].attr("d"))
	ly, _ := strconv.ParseFloat(f[len(f)-1], 64)
	if ty >= ly {
		t.Errorf("threshold y %v not above the latest value's y %v", ty, ly)
	}
	if !bytes.Equal(out, tr.Sparkline(insights.RatioDebtAssets)) {
		t.Error("two renderings differ")
	}
	if e := parse(t, svgchart.Trajectory{Symbol: "EXA"}.Sparkline(insights.RatioCashAssets)); !strings.Contains(e.Children[0].Text, "no filed quarters") {
		t.Errorf("empty sparkline title %q", e.Children[0].Text)
	}
}

// TestBadgeMarks: a marked screening's badge says so in its visible verdict ("Compliant
// (illustrative)"), sized to the longer words; a neutral badge shows no mark.
func TestBadgeMarks(t *testing.T) {
	plain := svgchart.Badge{Symbol: "MSFT", Verdict: "COMPLIANT", Ruleset: "5 methodologies", RulesetID: "spec"}
	marked := plain
	marked.Marks = "illustrative, carried forward"
	pn, mn := parse(t, plain.SVG()), parse(t, marked.SVG())
	verdict := func(n node) node {
		v := n.find(func(m node) bool { return m.XMLName.Local == "text" && m.attr("class") == "verdict" })
		if len(v) != 1 {
			t.Fatalf("verdict texts %+v", v)
		}
		return v[0]
	}
	if got := verdict(mn).Text; got != "Compliant (illustrative, carried forward)" {
		t.Fatalf("marked verdict %q", got)
	}
	if got := verdict(pn).Text; got != "Compliant" {
		t.Fatalf("plain verdict %q", got)
	}
	if title := mn.Children[0].Text; title != "MSFT: Compliant (illustrative, carried forward) under 5 methodologies (ruleset spec)" {
		t.Fatalf("title %q", title)
	}
	pw, _ := strconv.ParseFloat(pn.attr("width"), 64)
	if mw, _ := strconv.ParseFloat(mn.attr("width"), 64); mw <= pw+50 {
		t.Fatalf("the marked badge is not wider: %v vs %v", pw, mw)
	}
	none := marked
	none.Verdict = svgchart.NotScreened
	if got := verdict(parse(t, none.SVG())).Text; got != "Not screened" {
		t.Fatalf("neutral badge %q", got)
	}
}
