package svgchart

import (
	"bytes"
	"strconv"
	"strings"
)

// The sparkline's size (pixels): small enough for a table cell.
const (
	SparkWidth  = 120
	SparkHeight = 28
	sparkPad    = 3
)

// Sparkline draws one ratio over the quarters as a small line with its threshold lines (dashed), no
// axes, on the chart's time axis (the line breaks where a quarter was not filed): for tables, where the numbers sit next to it. Its title carries the first and latest values
// and the thresholds, for readers who cannot see it.
func (t Trajectory) Sparkline(ratio string) []byte {
	st, ok := styleOf(ratio)
	if !ok {
		st = trajectoryRatios[0]
	}
	var b bytes.Buffer
	var vals []float64
	type pt struct {
		i int
		v float64
	}
	var pts []pt
	ax := newTimeAxis(t.Points) // a quarter not filed leaves a gap in time, as on the chart
	for i, p := range t.Points {
		if v := p.RatioOf(st.ID); v != nil {
			pts = append(pts, pt{ax.ord[i] - ax.first, *v})
			vals = append(vals, *v)
		}
	}
	groups := t.groups([]ratioStyle{st})
	var th []string
	for _, g := range groups {
		vals = append(vals, bpFraction(g.line))
		th = append(th, strings.Join(g.names, ", ")+" "+bpPct(g.line))
	}
	title := t.Symbol + " " + strings.ToLower(st.Label) + ": "
	switch {
	case len(pts) == 0:
		title += "no filed quarters"
	case len(pts) == 1:
		title += pct(pts[0].v) + " in the one quarter filed"
	default:
		title += pct(pts[0].v) + " to " + pct(pts[len(pts)-1].v) + " over " + strconv.Itoa(len(t.Points)) + " quarters"
	}
	if len(th) > 0 {
		title += "; threshold " + strings.Join(th, "; ")
	}
	doc(&b, SparkWidth, SparkHeight, title, "")
	if len(pts) == 0 {
		b.WriteString(`<text x="60" y="18" font-family="DejaVu Sans,Verdana,sans-serif" font-size="10" fill="#57606a" text-anchor="middle">no data</text></svg>`)
		return b.Bytes()
	}
	// From 0 (or below) to just above the largest value or threshold, without ticks.
	lo, hi := 0.0, 0.0
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	hi = lo + (hi-lo)*1.1
	if hi-lo < 1e-9 {
		hi = lo + 0.1
	}
	y := func(v float64) float64 { return SparkHeight - sparkPad - (v-lo)/(hi-lo)*(SparkHeight-2*sparkPad) }
	n := ax.slots
	x := func(i int) float64 {
		if n == 1 {
			return SparkWidth / 2
		}
		return sparkPad + float64(i)*(SparkWidth-2*sparkPad)/float64(n-1)
	}
	for _, g := range groups {
		yy := num(y(bpFraction(g.line)))
		b.WriteString(`<line class="threshold" data-threshold-bp="` + g.line.ThresholdBP.String() + `" x1="0" x2="` + num(SparkWidth) +
			`" y1="` + yy + `" y2="` + yy + `" stroke="#b42318" stroke-width="1" stroke-dasharray="3 2"/>`)
	}
	var d strings.Builder
	pen, prev := "M", -2
	for _, p := range pts {
		if p.i != prev+1 {
			pen = "M"
		}
		d.WriteString(pen + num(x(p.i)) + " " + num(y(p.v)) + " ")
		pen, prev = "L", p.i
	}
	b.WriteString(`<path class="ratio" data-ratio="` + st.ID + `" d="` + strings.TrimSpace(d.String()) + `" fill="none" stroke="` + st.Color + `" stroke-width="1.5"/>`)
	last := pts[len(pts)-1]
	b.WriteString(`<circle cx="` + num(x(last.i)) + `" cy="` + num(y(last.v)) + `" r="2" fill="` + st.Color + `"/></svg>`)
	return b.Bytes()
}
