package svgchart

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/screening"
)

// Trajectory is a company's filed quarters with the threshold lines to draw against them.
type Trajectory struct {
	Symbol string
	Name   string
	// Ruleset and Methodology name the thresholds (Methodology is a display name; "" means every
	// methodology of the ruleset).
	Ruleset     string
	Methodology string
	Points      []insights.TrajectoryPoint // oldest first
	// Lines are the thresholds, from (*screening.Ruleset).ThresholdLines.
	Lines []insights.ThresholdLine
	// Ratios limits the chart to these ratios (nil: all four).
	Ratios []string
}

// The chart's geometry (pixels). The plot area is [PlotLeft, PlotRight] x [PlotTop, PlotBottom]; the
// y axis runs from its lowest tick at PlotBottom to its highest at PlotTop.
const (
	ChartWidth  = 760
	ChartHeight = 400
	PlotLeft    = 72
	PlotRight   = 540
	PlotTop     = 40
	PlotBottom  = 270
)

var bpPerUnit, bpPerPct = decimal.NewFromInt(10000), decimal.NewFromInt(100)

// scale maps a fraction to a y position between lo (PlotBottom) and hi (PlotTop).
type scale struct{ lo, hi, step float64 }

func (s scale) y(v float64) float64 {
	return PlotBottom - (v-s.lo)/(s.hi-s.lo)*(PlotBottom-PlotTop)
}

// niceScale picks a y range from 0 (or below, for a negative value) to a round step just above the
// largest value, with at most six steps.
func niceScale(values []float64) scale {
	lo, hi := 0.0, 0.0
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi-lo < 1e-9 {
		hi = lo + 0.1
	}
	span := (hi - lo) * 1.08
	step := 1.0
	for _, s := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10} {
		if span/s <= 6 {
			step = s
			break
		}
	}
	lo = math.Floor(lo/step+1e-9) * step
	hi = math.Ceil((lo+span)/step-1e-9) * step
	return scale{lo, hi, step}
}

// bpFraction is a threshold in basis points as a fraction.
func bpFraction(l insights.ThresholdLine) float64 {
	f, _ := l.ThresholdBP.Div(bpPerUnit).Float64()
	return f
}

// bpPct formats basis points as a percentage ("33.333%").
func bpPct(l insights.ThresholdLine) string {
	return l.ThresholdBP.Div(bpPerPct).String() + "%"
}

// ratios gives the styles of the ratios to draw.
func (t Trajectory) ratios() []ratioStyle {
	if len(t.Ratios) == 0 {
		return trajectoryRatios
	}
	var out []ratioStyle
	for _, r := range trajectoryRatios {
		for _, want := range t.Ratios {
			if r.ID == want {
				out = append(out, r)
			}
		}
	}
	return out
}

// lineGroup is the threshold lines of several methodologies at the same place: one line, every name.
type lineGroup struct {
	ratio   ratioStyle
	line    insights.ThresholdLine
	names   []string
	partial bool
}

// groups merges the lines of the drawn ratios that share a ratio, threshold and partialness, in the
// ruleset's order.
func (t Trajectory) groups(drawn []ratioStyle) []lineGroup {
	var out []lineGroup
	for _, l := range t.Lines {
		st, ok := styleOf(l.Ratio)
		if !ok || !containsStyle(drawn, l.Ratio) {
			continue
		}
		merged := false
		for i := range out {
			if out[i].line.Ratio == l.Ratio && out[i].line.ThresholdBP.Equal(l.ThresholdBP) && out[i].partial == l.Partial {
				out[i].names = append(out[i].names, l.Name)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, lineGroup{ratio: st, line: l, names: []string{l.Name}, partial: l.Partial})
		}
	}
	return out
}

func containsStyle(ss []ratioStyle, id string) bool {
	for _, s := range ss {
		if s.ID == id {
			return true
		}
	}
	return false
}

// quarterLabel names a quarter on the x axis: "Q3 2025".
func quarterLabel(p insights.TrajectoryPoint) string {
	if p.Period == "" || p.FiscalYear == 0 {
		return p.PeriodEnd
	}
	return p.Period + " " + strconv.Itoa(p.FiscalYear)
}

func (t Trajectory) who() string {
	if t.Name != "" && t.Name != t.Symbol {
		return t.Name + " (" + t.Symbol + ")"
	}
	return t.Symbol
}

func (t Trajectory) under() string {
	if t.Methodology != "" {
		return t.Methodology + " thresholds (ruleset " + t.Ruleset + ")"
	}
	return "the thresholds of every methodology of ruleset " + t.Ruleset
}

// short is a ratio's name in a threshold label.
func short(r ratioStyle) string { return strings.ToLower(strings.Fields(r.Label)[0]) }

// label is a threshold line's label, shortened to a count of methodologies when their names do not
// fit right of the plot (the line's own <title> keeps them all).
func (g lineGroup) label() string {
	s := short(g.ratio) + ": " + strings.Join(g.names, ", ") + " " + bpPct(g.line)
	if safeWidth(s, thresholdFont, false) > ChartWidth-PlotRight-8 {
		s = short(g.ratio) + ": " + strconv.Itoa(len(g.names)) + " methodologies " + bpPct(g.line)
	}
	return s
}

// Text sizes and the limits labels keep to (pixels).
const (
	axisFont      = 11
	thresholdFont = 10
	titleFont     = 14
	legendLine    = 18
	// thresholdLabelGap is the least distance between two threshold labels' baselines.
	thresholdLabelGap = 12
	// thresholdLabelFloor is the lowest baseline of a threshold label: above the legend.
	thresholdLabelFloor = PlotBottom + 30
)

// Chart draws the ratios over time: one slot per quarter from the first filed to the last, so a quarter
// with no filing is a shaded gap the lines do not cross, named in the legend ("No filing: Q1 2025,
// Q2 2025"). Thresholds are horizontal lines in the ratio's colour (a partial threshold dashed) with
// their labels right of the plot, pushed apart and kept above the legend; x labels are thinned so none
// overlaps its neighbour, long texts are shortened or wrapped, and the picture grows to hold its legend.
// A quarter whose figures are illustrative has a hollow dot and is named. No quarters on file: a chart
// that says so.
func (t Trajectory) Chart() []byte {
	if len(t.Points) == 0 {
		return t.emptyChart()
	}
	c := t.newChart()
	c.body.WriteString(`<g font-family="DejaVu Sans,Verdana,sans-serif" font-size="11" fill="#24292f">`)
	c.body.WriteString(`<text class="chart-title" x="` + num(PlotLeft) + `" y="22" font-size="14" font-weight="bold">` +
		esc(fit(t.who(), titleFont, ChartWidth-PlotLeft-8, true)) + `</text>`)
	c.writeGaps()
	c.writeYAxis()
	c.writeXAxis()
	c.writeThresholds()
	c.writeSeries()
	legendEnd := c.writeLegend()
	c.body.WriteString(`</g></g></svg>`)

	var b bytes.Buffer
	height := math.Max(ChartHeight, math.Ceil(legendEnd-legendLine+10))
	doc(&b, ChartWidth, height, c.title(), insights.TrajectorySummary(t.Points))
	b.WriteString(`<rect width="` + num(ChartWidth) + `" height="` + num(height) + `" fill="#ffffff"/>`)
	b.Write(c.body.Bytes())
	return b.Bytes()
}

// emptyChart is the small picture of a company with no filed quarters.
func (t Trajectory) emptyChart() []byte {
	var b bytes.Buffer
	title := t.who() + ": no filed quarters on record"
	doc(&b, ChartWidth, 120, title, "The trajectory is drawn from quarterly filings; none are stored for this company.")
	b.WriteString(`<rect width="` + num(ChartWidth) + `" height="120" fill="#ffffff"/>`)
	b.WriteString(`<text x="` + num(ChartWidth/2) + `" y="64" font-family="DejaVu Sans,Verdana,sans-serif" font-size="14" fill="#24292f" text-anchor="middle">` +
		esc(fit(title, titleFont, ChartWidth-16, false)) + `</text></svg>`)
	return b.Bytes()
}

// chart is a trajectory chart being drawn: what it draws, where, and the picture's body written so far
// (everything after the background).
type chart struct {
	t      Trajectory
	drawn  []ratioStyle
	ax     timeAxis
	gaps   []string // the runs of quarters without a filing, named
	marked []string // the quarters with a mark (illustrative)
	groups []lineGroup
	sc     scale
	body   bytes.Buffer
}

// newChart lays a trajectory out: its ratios, its quarters' slots, the gaps and marked quarters to
// name, its threshold lines, and a y scale holding every value and threshold.
func (t Trajectory) newChart() *chart {
	c := &chart{t: t, drawn: t.ratios(), ax: newTimeAxis(t.Points)}
	c.gaps = c.ax.gapRuns()
	for _, p := range t.Points {
		if len(insights.PointMarks(p)) > 0 {
			c.marked = append(c.marked, quarterLabel(p))
		}
	}
	c.groups = t.groups(c.drawn)
	var values []float64
	for _, p := range t.Points {
		for _, r := range c.drawn {
			if v := p.RatioOf(r.ID); v != nil {
				values = append(values, *v)
			}
		}
	}
	for _, g := range c.groups {
		values = append(values, bpFraction(g.line))
	}
	c.sc = niceScale(values)
	return c
}

// title is the picture's title: who, which ratios over how many quarters under which thresholds, and
// the quarters without a filing or with illustrative figures.
func (c *chart) title() string {
	names := make([]string, len(c.drawn))
	for i, r := range c.drawn {
		names[i] = strings.ToLower(r.Label)
	}
	title := c.t.who() + ": " + strings.Join(names, ", ") + " over " + strconv.Itoa(len(c.t.Points)) + " quarters, with " + c.t.under()
	if len(c.gaps) > 0 {
		title += "; no filing: " + strings.Join(c.gaps, ", ")
	}
	if len(c.marked) > 0 {
		title += "; " + screening.MarkLabel(screening.MarkIllustrative) + ": " + strings.Join(c.marked, ", ")
	}
	return title
}

// writeGaps shades the quarters without a filing, under everything else.
func (c *chart) writeGaps() {
	slot := c.ax.slotWidth()
	for _, o := range c.ax.missing {
		c.body.WriteString(`<rect class="gap" data-quarter="` + c.ax.quarterName(o) + `" x="` + num(c.ax.x(o)-slot/2) + `" y="` + num(PlotTop) +
			`" width="` + num(slot) + `" height="` + num(PlotBottom-PlotTop) + `" fill="#eaeef2"><title>` + esc("No filing: "+c.ax.quarterName(o)) + `</title></rect>`)
	}
}

// writeYAxis draws the y axis: grid lines and percentage ticks; each tick carries its value for readers
// and tests.
func (c *chart) writeYAxis() {
	sc := c.sc
	c.body.WriteString(`<g class="y-axis" text-anchor="end">`)
	for v := sc.lo; v <= sc.hi+sc.step/1000; v += sc.step {
		y := num(sc.y(v))
		c.body.WriteString(`<line x1="` + num(PlotLeft) + `" x2="` + num(PlotRight) + `" y1="` + y + `" y2="` + y + `" stroke="#d0d7de" stroke-width="1"/>`)
		c.body.WriteString(`<text class="tick" data-value="` + strconv.FormatFloat(roundTo(v, 6), 'f', -1, 64) + `" x="` + num(PlotLeft-6) + `" y="` +
			num(sc.y(v)+4) + `">` + tickPct(roundTo(v, 6)) + `</text>`)
	}
	c.body.WriteString(`<text class="y-title" transform="rotate(-90)" x="` + num(-(PlotTop+PlotBottom)/2) + `" y="12" text-anchor="middle">Ratio (% of total assets or revenue)</text>`)
	c.body.WriteString(`</g>`)
}

// writeXAxis draws the x axis: a label per filed quarter, thinned where neighbours would overlap (each
// dot's title still names its quarter), kept within the plot's width.
func (c *chart) writeXAxis() {
	c.body.WriteString(`<g class="x-axis" text-anchor="middle">`)
	c.body.WriteString(`<line x1="` + num(PlotLeft) + `" x2="` + num(PlotRight) + `" y1="` + num(PlotBottom) + `" y2="` + num(PlotBottom) + `" stroke="#57606a"/>`)
	right := math.Inf(-1)
	for i, p := range c.t.Points {
		label := quarterLabel(p)
		w := safeWidth(label, axisFont, false)
		cx := math.Min(math.Max(c.ax.x(c.ax.ord[i]), PlotLeft+w/2), PlotRight-w/2)
		if cx-w/2 < right+6 {
			continue
		}
		right = cx + w/2
		c.body.WriteString(`<text class="x-label" x="` + num(cx) + `" y="` + num(PlotBottom+16) + `">` + esc(label) + `</text>`)
	}
	caption := "Fiscal quarter (filed)"
	if !c.ax.fiscal {
		caption = "Quarter of the period end (filed)"
	}
	c.body.WriteString(`<text class="x-title" x="` + num((PlotLeft+PlotRight)/2) + `" y="` + num(PlotBottom+34) + `">` + caption + `</text>`)
	c.body.WriteString(`</g>`)
}

// thresholdLabelYs places the threshold lines' labels: each by its line, pushed apart where lines are
// close and kept between the plot's top and the legend.
func (c *chart) thresholdLabelYs() []float64 {
	labelY := make([]float64, len(c.groups))
	order := make([]int, len(c.groups))
	for i, g := range c.groups {
		labelY[i], order[i] = c.sc.y(bpFraction(g.line))+4, i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(labelY[a], labelY[b]) })
	want := make([]float64, len(order))
	for k, i := range order {
		want[k] = labelY[i]
	}
	for k, y := range spread(want, thresholdLabelGap, PlotTop-8, thresholdLabelFloor) {
		labelY[order[k]] = y
	}
	return labelY
}

// writeThresholds draws the threshold lines, under the data (a partial threshold dashed), with their
// labels right of the plot.
func (c *chart) writeThresholds() {
	c.body.WriteString(`<g class="thresholds">`)
	labelY := c.thresholdLabelYs()
	for i, g := range c.groups {
		y := num(c.sc.y(bpFraction(g.line)))
		dash := ""
		if g.partial {
			dash = ` stroke-dasharray="6 4"`
		}
		c.body.WriteString(`<line class="threshold" data-ratio="` + g.line.Ratio + `" data-threshold-bp="` + g.line.ThresholdBP.String() +
			`" data-partial="` + strconv.FormatBool(g.partial) + `" x1="` + num(PlotLeft) + `" x2="` + num(PlotRight) + `" y1="` + y + `" y2="` + y +
			`" stroke="` + g.ratio.Color + `" stroke-width="1.5" stroke-opacity="0.8"` + dash + `><title>` +
			esc(g.ratio.Label+" threshold, "+strings.Join(g.names, ", ")+": "+bpPct(g.line)) + `</title></line>`)
		c.body.WriteString(`<text class="threshold-label" x="` + num(PlotRight+4) + `" y="` + num(labelY[i]) + `" font-size="10" fill="` + g.ratio.Color + `">` +
			esc(fit(g.label(), thresholdFont, ChartWidth-PlotRight-8, false)) + `</text>`)
	}
	c.body.WriteString(`</g>`)
}

// writeSeries draws the ratios, each a line through consecutive quarters that have a value (broken by
// a quarter without a filing or without the value) and a dot per quarter (hollow when illustrative).
func (c *chart) writeSeries() {
	c.body.WriteString(`<g class="series" fill="none" stroke-width="2">`)
	for _, r := range c.drawn {
		d, dots := c.seriesPath(r)
		if d == "" {
			continue
		}
		c.body.WriteString(`<path class="ratio" data-ratio="` + r.ID + `" d="` + strings.TrimSpace(d) + `" stroke="` + r.Color + `"/>`)
		c.body.WriteString(dots)
	}
	c.body.WriteString(`</g>`)
}

// seriesPath is one ratio's path data ("M x y L x y ...", empty when no quarter has the ratio) and
// its dots.
func (c *chart) seriesPath(r ratioStyle) (d, dots string) {
	var path, circles strings.Builder
	pen, prev := "M", math.MinInt
	for i, p := range c.t.Points {
		v := p.RatioOf(r.ID)
		if v == nil {
			pen = "M"
			continue
		}
		if c.ax.ord[i] > prev+1 {
			pen = "M"
		}
		x := c.ax.x(c.ax.ord[i])
		path.WriteString(pen + num(x) + " " + num(c.sc.y(*v)) + " ")
		pen, prev = "L", c.ax.ord[i]
		fill, what := r.Color, ""
		if len(insights.PointMarks(p)) > 0 {
			fill, what = "#ffffff", " ("+screening.MarkLabel(screening.MarkIllustrative)+")"
		}
		circles.WriteString(`<circle cx="` + num(x) + `" cy="` + num(c.sc.y(*v)) + `" r="2.5" fill="` + fill + `" stroke="` + r.Color + `" stroke-width="1"><title>` +
			esc(r.Label+", "+quarterLabel(p)+": "+pct(*v)+what) + `</title></circle>`)
	}
	return path.String(), circles.String()
}

// writeLegend draws the legend: the ratios, then what the threshold lines, the gaps and the hollow dots
// mean; long lines wrap within the picture. It returns the baseline the next entry would take.
func (c *chart) writeLegend() float64 {
	ly := float64(PlotBottom + 58)
	c.body.WriteString(`<g class="legend">`)
	for i, r := range c.drawn {
		lx := float64(PlotLeft) + float64(i%2)*240
		yy := ly + float64(i/2)*legendLine
		c.body.WriteString(`<line x1="` + num(lx) + `" x2="` + num(lx+22) + `" y1="` + num(yy-4) + `" y2="` + num(yy-4) + `" stroke="` + r.Color + `" stroke-width="2"/>`)
		c.body.WriteString(`<text x="` + num(lx+28) + `" y="` + num(yy) + `">` + esc(r.Label) + `</text>`)
	}
	l := legendNotes{body: &c.body, y: ly + float64((len(c.drawn)+1)/2)*legendLine}
	l.entry("", l.lineSwatch(""), "Threshold (solid): "+c.t.under())
	if hasPartial(c.groups) {
		l.entry("partial-note", l.lineSwatch(` stroke-dasharray="6 4"`), "Partial: the rule also counts impure revenue, which quarterly filings do not report")
	}
	if len(c.groups) == 0 {
		l.entry("", "", "No threshold of this methodology is measured on these ratios (its rules use market capitalisation).")
	}
	if len(c.gaps) > 0 {
		l.entry("gap-note", `<rect x="`+num(PlotLeft)+`" y="`+num(l.y-10)+`" width="22" height="12" fill="#eaeef2"/>`, "No filing: "+strings.Join(c.gaps, ", "))
	}
	if len(c.marked) > 0 {
		l.entry("mark-note", `<circle cx="`+num(PlotLeft+11)+`" cy="`+num(l.y-4)+`" r="3" fill="#ffffff" stroke="#24292f"/>`,
			"Hollow dot: "+screening.MarkLabel(screening.MarkIllustrative)+" figures, not from a filing: "+strings.Join(c.marked, ", "))
	}
	return l.y
}

// legendNotes writes the legend's notes under its ratios, one after another from baseline y: a swatch
// left, its text wrapped right of it.
type legendNotes struct {
	body *bytes.Buffer
	y    float64
}

// legendTextX is where a legend note's text starts.
const legendTextX = PlotLeft + 28

// entry writes a note: its swatch, then its text's lines (with class when not empty), moving y past it.
func (l *legendNotes) entry(class, swatch, text string) {
	l.body.WriteString(swatch)
	for k, line := range wrap(text, axisFont, ChartWidth-legendTextX-8) {
		cls := ""
		if class != "" {
			cls = ` class="` + class + `"`
		}
		l.body.WriteString(`<text` + cls + ` x="` + num(legendTextX) + `" y="` + num(l.y+float64(k)*14) + `">` + esc(line) + `</text>`)
		if k > 0 {
			l.y += 14
		}
	}
	l.y += legendLine
}

// lineSwatch is a note's swatch of a threshold line (dash: its stroke-dasharray attribute, or "").
func (l *legendNotes) lineSwatch(dash string) string {
	return `<line x1="` + num(PlotLeft) + `" x2="` + num(PlotLeft+22) + `" y1="` + num(l.y-4) + `" y2="` + num(l.y-4) + `" stroke="#57606a" stroke-width="1.5"` + dash + `/>`
}

// tickPct is a y tick's label: one decimal, none from 100% up (a ratio far above its thresholds
// would otherwise widen the label into the axis title).
func tickPct(f float64) string {
	if math.Abs(f) >= 1 {
		return strconv.FormatFloat(f*100, 'f', 0, 64) + "%"
	}
	return pct(f)
}

func hasPartial(gs []lineGroup) bool {
	for _, g := range gs {
		if g.partial {
			return true
		}
	}
	return false
}

func roundTo(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
