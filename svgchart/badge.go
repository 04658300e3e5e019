package svgchart

import "bytes"

// NotScreened is the badge verdict of a symbol with no stored screening (or one that cannot be read):
// a neutral badge, never an error image.
const NotScreened = "NOT_SCREENED"

// Badge is a compact compliance badge: "Shariah · <methodology>" on the left, the verdict on the right.
type Badge struct {
	Symbol string
	// Verdict is a compliance status (COMPLIANT, NON_COMPLIANT, QUESTIONABLE, INSUFFICIENT_DATA) or
	// NotScreened.
	Verdict string
	// Methodology is the display name of the methodology whose verdict this is ("" for the ruleset's
	// overall verdict, shown under the ruleset's name).
	Methodology string
	// Ruleset is the ruleset's name as a person reads it ((*shariah.Ruleset).DisplayName: "S&P 2023",
	// "5 methodologies"); RulesetID its id ("spec"), in the title.
	Ruleset   string
	RulesetID string
	AsOf      string // the screening's date (YYYY-MM-DD), in the title; optional
	// Marks is the label of the marks on the screening (shariah.MarksOf: "illustrative"), shown after
	// the verdict: "Compliant (illustrative)". "" when it stands on filed inputs.
	Marks string
}

// Colors are a badge side's fill and text colours. Every pair has a contrast ratio of at least 4.5:1
// (WCAG AA for small text); the test holds it.
type Colors struct{ Fill, Text string }

// labelColors are the left side's.
var labelColors = Colors{"#24292f", "#ffffff"}

// VerdictColors gives the colours of a verdict's side of the badge. The questionable amber is dark
// enough for white text; unknown verdicts get the neutral grey.
func VerdictColors(verdict string) Colors {
	switch verdict {
	case "COMPLIANT":
		return Colors{"#1a7f37", "#ffffff"}
	case "NON_COMPLIANT":
		return Colors{"#b42318", "#ffffff"}
	case "QUESTIONABLE":
		return Colors{"#8a5a00", "#ffffff"}
	case "INSUFFICIENT_DATA":
		return Colors{"#57606a", "#ffffff"}
	}
	return Colors{"#4b5563", "#ffffff"}
}

// VerdictText is the words a badge shows for a verdict.
func VerdictText(verdict string) string {
	switch verdict {
	case "COMPLIANT":
		return "Compliant"
	case "NON_COMPLIANT":
		return "Non-compliant"
	case "QUESTIONABLE":
		return "Questionable"
	case "INSUFFICIENT_DATA":
		return "Insufficient data"
	}
	return "Not screened"
}

const (
	badgeHeight = 20
	badgeFont   = 11
	badgePad    = 6
)

// SVG draws the badge.
func (b Badge) SVG() []byte {
	label := "Shariah"
	under := b.Methodology
	if under == "" {
		under = b.Ruleset
	}
	if under != "" && b.Verdict != NotScreened {
		label += " · " + under
	}
	verdict := VerdictText(b.Verdict)
	if b.Marks != "" && b.Verdict != NotScreened {
		verdict += " (" + b.Marks + ")"
	}
	title := b.Symbol + ": " + verdict
	id := b.RulesetID
	if id == "" {
		id = b.Ruleset
	}
	switch {
	case b.Verdict == NotScreened:
		title += " (no stored screening)"
	case b.Methodology != "":
		title += " under " + b.Methodology + " (ruleset " + id + ")"
	case b.Ruleset != "":
		title += " under " + b.Ruleset + " (ruleset " + id + ")"
	}
	if b.AsOf != "" && b.Verdict != NotScreened {
		title += ", screened " + b.AsOf
	}
	lw := textWidth(label, badgeFont) + 2*badgePad
	vw := textWidth(verdict, badgeFont) + 2*badgePad
	vc := VerdictColors(b.Verdict)
	var buf bytes.Buffer
	doc(&buf, lw+vw, badgeHeight, title, "")
	buf.WriteString(`<g shape-rendering="crispEdges">`)
	buf.WriteString(`<rect width="` + num(lw) + `" height="20" fill="` + labelColors.Fill + `"/>`)
	buf.WriteString(`<rect class="verdict" x="` + num(lw) + `" width="` + num(vw) + `" height="20" fill="` + vc.Fill + `"/>`)
	buf.WriteString(`</g>`)
	buf.WriteString(`<g font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle" aria-hidden="true">`)
	buf.WriteString(`<text x="` + num(lw/2) + `" y="14" fill="` + labelColors.Text + `">` + esc(label) + `</text>`)
	buf.WriteString(`<text class="verdict" x="` + num(lw+vw/2) + `" y="14" fill="` + vc.Text + `">` + esc(verdict) + `</text>`)
	buf.WriteString(`</g></svg>`)
	return buf.Bytes()
}
