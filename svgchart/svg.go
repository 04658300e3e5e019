// Package svgchart draws the service's pictures as SVG on the server: a compliance badge, a company's
// trajectory chart and a one-ratio sparkline. The output is a pure function of its input (the same input
// gives the same bytes, so ETags hold across processes), uses no script and no external font or image,
// and every picture carries a <title> and an aria-label for screen readers.
package svgchart

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/shariah-screen/shariah/insights"
)

// ratioStyle is how one trajectory ratio is drawn: its label and its colour (Okabe-Ito, told apart by
// colour-blind readers too).
type ratioStyle struct {
	ID, Label, Color string
}

// trajectoryRatios are the four ratios of insights.TrajectoryPoint, in the order they are drawn.
var trajectoryRatios = []ratioStyle{
	{insights.RatioDebtAssets, "Debt / assets", "#0072B2"},
	{insights.RatioCashAssets, "Cash / assets", "#009E73"},
	{insights.RatioLiquidityAssets, "Liquidity / assets", "#D55E00"},
	{insights.RatioInterestRevenue, "Interest / revenue", "#CC79A7"},
}

func styleOf(name string) (ratioStyle, bool) {
	for _, r := range trajectoryRatios {
		if r.ID == name {
			return r, true
		}
	}
	return ratioStyle{}, false
}

// esc escapes text for an XML text node or attribute value: company names and symbols come from
// outside sources and must not break (or script) the picture.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// num formats a coordinate with at most two decimals and no trailing zeros, so output is byte-stable.
func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// pct formats a fraction as a percentage with one decimal.
func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" }

// textWidth estimates the rendered width of s in pixels at the given font size, from per-character
// classes of a sans-serif face: no font metrics on the server, and the estimate must be deterministic.
func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("ijlI.,:;|!'() ", r):
			w += 0.32
		case strings.ContainsRune("mwMW@%", r):
			w += 0.9
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			w += 0.66
		default:
			w += 0.56
		}
	}
	return w * size
}

// doc starts an SVG document with its accessible name.
func doc(b *bytes.Buffer, w, h float64, title, desc string) {
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + num(w) + `" height="` + num(h) + `" viewBox="0 0 ` + num(w) + ` ` + num(h) +
		`" role="img" aria-label="` + esc(title) + `">`)
	b.WriteString(`<title>` + esc(title) + `</title>`)
	if desc != "" {
		b.WriteString(`<desc>` + esc(desc) + `</desc>`)
	}
}
