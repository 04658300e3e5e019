package svgchart

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
)

// Trajectory is a company's filed quarters with the threshold lines to draw against them.
type Trajectory struct {
	Symbol string
	Name   string
	// Ruleset and Methodology name the thresholds (Methodology is a display name; "" means every
	// methodology of the ruleset).
	Ruleset     string
	Methodology string
	Points      []shariah.TrajectoryPoint // oldest first
	// Lines are the thresholds, from (*shariah.Ruleset).ThresholdLines.
	Lines []shariah.ThresholdLine
	// Ratios limits the chart to these ratios (nil: all four).
	Ratios []string
}

// The chart's geometry (pixels). The plot area is [PlotLeft, PlotRight] x [PlotTop, PlotBottom]; the
// y axis runs from its lowest tick at PlotBottom to its highest at PlotTop.
const (
	ChartWidth  = 700
	ChartHeight = 400
	PlotLeft    = 56
	PlotRight   = 520
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
func bpFraction(l shariah.ThresholdLine) float64 {
	f, _ := l.ThresholdBP.Div(bpPerUnit).Float64()
	return f
}

// bpPct formats basis points as a percentage ("33.333%").
func bpPct(l shariah.ThresholdLine) string {
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
	line    shariah.ThresholdLine
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
func quarterLabel(p shariah.TrajectoryPoint) string {
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
	if textWidth(s, 10) > ChartWidth-PlotRight-8 {
		s = short(g.ratio) + ": " + strconv.Itoa(len(g.names)) + " methodologies " + bpPct(g.line)
	}
	return s
}

// Chart draws the ratios over the quarters as lines, the thresholds as horizontal lines in the ratio's
// colour (a partial threshold dashed), labelled axes and a legend. No quarters on file: a chart that
// says so.
func (t Trajectory) Chart() []byte {
	var b bytes.Buffer
	drawn := t.ratios()
	if len(t.Points) == 0 {
		title := t.who() + ": no filed quarters on record"
		doc(&b, ChartWidth, 120, title, "The trajectory is drawn from quarterly filings; none are stored for this company.")
		b.WriteString(`<rect width="700" height="120" fill="#ffffff"/>`)
		b.WriteString(`<text x="350" y="64" font-family="DejaVu Sans,Verdana,sans-serif" font-size="14" fill="#24292f" text-anchor="middle">` +
			esc(title) + `</text></svg>`)
		return b.Bytes()
	}
	names := make([]string, len(drawn))
	for i, r := range drawn {
		names[i] = strings.ToLower(r.Label)
	}
	title := t.who() + ": " + strings.Join(names, ", ") + " over " + strconv.Itoa(len(t.Points)) + " quarters, with " + t.under()
	doc(&b, ChartWidth, ChartHeight, title, shariah.TrajectorySummary(t.Points))
	b.WriteString(`<rect width="700" height="400" fill="#ffffff"/>`)
	b.WriteString(`<g font-family="DejaVu Sans,Verdana,sans-serif" font-size="11" fill="#24292f">`)
	b.WriteString(`<text x="` + num(PlotLeft) + `" y="22" font-size="14" font-weight="bold">` + esc(t.who()) + `</text>`)

	groups := t.groups(drawn)
	var values []float64
	for _, p := range t.Points {
		for _, r := range drawn {
			if v := p.RatioOf(r.ID); v != nil {
				values = append(values, *v)
			}
		}
	}
	for _, g := range groups {
		values = append(values, bpFraction(g.line))
	}
	sc := niceScale(values)

	// y axis: grid lines and percentage ticks; each tick carries its value for readers and tests.
	b.WriteString(`<g class="y-axis" text-anchor="end">`)
	for v := sc.lo; v <= sc.hi+sc.step/1000; v += sc.step {
		y := num(sc.y(v))
		b.WriteString(`<line x1="` + num(PlotLeft) + `" x2="` + num(PlotRight) + `" y1="` + y + `" y2="` + y + `" stroke="#d0d7de" stroke-width="1"/>`)
		b.WriteString(`<text class="tick" data-value="` + strconv.FormatFloat(roundTo(v, 6), 'f', -1, 64) + `" x="` + num(PlotLeft-6) + `" y="` +
			num(sc.y(v)+4) + `">` + pct(roundTo(v, 6)) + `</text>`)
	}
	b.WriteString(`<text transform="rotate(-90)" x="` + num(-(PlotTop+PlotBottom)/2) + `" y="14" text-anchor="middle">Ratio (% of total assets or revenue)</text>`)
	b.WriteString(`</g>`)

	// x axis: one label per quarter.
	n := len(t.Points)
	slot := float64(PlotRight-PlotLeft) / float64(n)
	x := func(i int) float64 { return PlotLeft + (float64(i)+0.5)*slot }
	b.WriteString(`<g class="x-axis" text-anchor="middle">`)
	b.WriteString(`<line x1="` + num(PlotLeft) + `" x2="` + num(PlotRight) + `" y1="` + num(PlotBottom) + `" y2="` + num(PlotBottom) + `" stroke="#57606a"/>`)
	for i, p := range t.Points {
		b.WriteString(`<text x="` + num(x(i)) + `" y="` + num(PlotBottom+16) + `">` + esc(quarterLabel(p)) + `</text>`)
	}
	b.WriteString(`<text x="` + num((PlotLeft+PlotRight)/2) + `" y="` + num(PlotBottom+34) + `">Fiscal quarter (filed)</text>`)
	b.WriteString(`</g>`)

	// thresholds, under the data; their labels right of the plot, pushed apart where lines are close
	b.WriteString(`<g class="thresholds">`)
	labelY := make([]float64, len(groups))
	order := make([]int, len(groups))
	for i, g := range groups {
		labelY[i], order[i] = sc.y(bpFraction(g.line))+4, i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(labelY[a], labelY[b]) })
	for k := 1; k < len(order); k++ {
		labelY[order[k]] = math.Max(labelY[order[k]], labelY[order[k-1]]+12)
	}
	for i, g := range groups {
		y := num(sc.y(bpFraction(g.line)))
		dash := ""
		if g.partial {
			dash = ` stroke-dasharray="6 4"`
		}
		b.WriteString(`<line class="threshold" data-ratio="` + g.line.Ratio + `" data-threshold-bp="` + g.line.ThresholdBP.String() +
			`" data-partial="` + strconv.FormatBool(g.partial) + `" x1="` + num(PlotLeft) + `" x2="` + num(PlotRight) + `" y1="` + y + `" y2="` + y +
			`" stroke="` + g.ratio.Color + `" stroke-width="1.5" stroke-opacity="0.8"` + dash + `><title>` +
			esc(g.ratio.Label+" threshold, "+strings.Join(g.names, ", ")+": "+bpPct(g.line)) + `</title></line>`)
		b.WriteString(`<text class="threshold-label" x="` + num(PlotRight+4) + `" y="` + num(labelY[i]) + `" font-size="10" fill="` + g.ratio.Color + `">` +
			esc(g.label()) + `</text>`)
	}
	b.WriteString(`</g>`)

	// the ratios: a line through the quarters that have a value (a gap where a filing lacks one), and a
	// dot per quarter
	b.WriteString(`<g class="series" fill="none" stroke-width="2">`)
	for _, r := range drawn {
		var d strings.Builder
		pen := "M"
		var dots strings.Builder
		for i, p := range t.Points {
			v := p.RatioOf(r.ID)
			if v == nil {
				pen = "M"
				continue
			}
			d.WriteString(pen + num(x(i)) + " " + num(sc.y(*v)) + " ")
			pen = "L"
			dots.WriteString(`<circle cx="` + num(x(i)) + `" cy="` + num(sc.y(*v)) + `" r="2.5" fill="` + r.Color + `"><title>` +
				esc(r.Label+", "+quarterLabel(p)+": "+pct(*v)) + `</title></circle>`)
		}
		if d.Len() == 0 {
			continue
		}
		b.WriteString(`<path class="ratio" data-ratio="` + r.ID + `" d="` + strings.TrimSpace(d.String()) + `" stroke="` + r.Color + `"/>`)
		b.WriteString(dots.String())
	}
	b.WriteString(`</g>`)

	// legend: the ratios, then what the threshold lines mean
	ly := float64(PlotBottom + 58)
	b.WriteString(`<g class="legend">`)
	for i, r := range drawn {
		lx := float64(PlotLeft) + float64(i%2)*240
		yy := ly + float64(i/2)*18
		b.WriteString(`<line x1="` + num(lx) + `" x2="` + num(lx+22) + `" y1="` + num(yy-4) + `" y2="` + num(yy-4) + `" stroke="` + r.Color + `" stroke-width="2"/>`)
		b.WriteString(`<text x="` + num(lx+28) + `" y="` + num(yy) + `">` + esc(r.Label) + `</text>`)
	}
	yy := ly + float64((len(drawn)+1)/2)*18
	b.WriteString(`<line x1="` + num(PlotLeft) + `" x2="` + num(PlotLeft+22) + `" y1="` + num(yy-4) + `" y2="` + num(yy-4) + `" stroke="#57606a" stroke-width="1.5"/>`)
	b.WriteString(`<text x="` + num(PlotLeft+28) + `" y="` + num(yy) + `">` + esc("Threshold (solid): "+t.under()) + `</text>`)
	if hasPartial(groups) {
		yy += 18
		b.WriteString(`<line x1="` + num(PlotLeft) + `" x2="` + num(PlotLeft+22) + `" y1="` + num(yy-4) + `" y2="` + num(yy-4) +
			`" stroke="#57606a" stroke-width="1.5" stroke-dasharray="6 4"/>`)
		b.WriteString(`<text class="partial-note" x="` + num(PlotLeft+28) + `" y="` + num(yy) + `">` +
			esc("Partial: the rule also counts impure revenue, which quarterly filings do not report") + `</text>`)
	}
	if len(groups) == 0 {
		yy += 18
		b.WriteString(`<text x="` + num(PlotLeft) + `" y="` + num(yy) + `">` +
			esc("No threshold of this methodology is measured on these ratios (its rules use market capitalisation).") + `</text>`)
	}
	b.WriteString(`</g></g></svg>`)
	return b.Bytes()
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
