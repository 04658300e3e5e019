package screening

import (
	"slices"
	"strings"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// Mark kinds: what a person must be told about a screening's inputs before trusting a number or a
// verdict drawn from them. Every surface (dashboard, badge, trajectory picture, MCP text, the agent's
// sentences, CSV exports, reports, compare) shows the marks MarksOf gives, with their labels.
const (
	MarkIllustrative     = "illustrative"       // an input was made up for the offline demo (sector profile)
	MarkCarriedForward   = "carried_forward"    // an input came from an earlier fiscal year than the one screened
	MarkSuspectMarketCap = "suspect_market_cap" // the market cap was held back as suspect (shares and prices on different bases)
	MarkBounded          = "bounded"            // an input the period does not report was bounded by filed figures (interest_bound.go)
)

// Mark is one mark on a screening: its kind, the short label a picture or a column shows, and the
// sentence a banner or a report shows.
type Mark struct {
	Kind   string `json:"kind"`
	Label  string `json:"label"`
	Detail string `json:"detail"`
}

// ratioEvidence is what a screening knows of one ratio's inputs as it computes it.
type ratioEvidence struct {
	sources map[string]bool // the Source of each fact used, and the price source of a market cap
	carried bool            // computed on the fiscal year an input was carried from
}

// markRule is one kind of mark: when it applies to a ratio (from the ratio and what its screening
// knew of its inputs) and when to a screening as a whole (from its data_quality; a mark on any ratio
// marks the screening too). A new kind is one more line of markRules.
type markRule struct {
	Mark
	ratio  func(rr RatioResult, e ratioEvidence) bool
	result func(r *Result) bool
}

var markRules = []markRule{
	{Mark{MarkIllustrative, "illustrative", "Illustrative inputs: some figures are made up from a sector profile, not read from a filing."},
		func(_ RatioResult, e ratioEvidence) bool { return e.sources[shariah.SourceIllustrative] },
		func(r *Result) bool { return r.DataQuality.Illustrative }},
	{Mark{MarkCarriedForward, "carried forward", "Carried forward: an input the screened period does not report is taken from an earlier fiscal year."},
		func(_ RatioResult, e ratioEvidence) bool { return e.carried },
		func(r *Result) bool { return len(r.DataQuality.CarriedForward) > 0 }},
	{Mark{MarkBounded, "on a bound", "On a bound: an input the period does not report is bounded by filed figures, and the ratio is decided on that bound."},
		func(rr RatioResult, _ ratioEvidence) bool { return rr.Bound != nil },
		func(r *Result) bool { return len(r.DataQuality.Bounded) > 0 }},
	{Mark{MarkSuspectMarketCap, "suspect market cap", "Suspect market cap: shares and prices may be on different bases, so the market cap is held back."},
		func(rr RatioResult, _ ratioEvidence) bool { return slices.Contains(rr.Missing, missingCapHeldBack) },
		func(r *Result) bool {
			return slices.ContainsFunc(r.DataQuality.Notes, func(n string) bool { return strings.HasPrefix(n, market.MarketCapHeldBack) })
		}},
}

// ratioMarks is the kinds of mark on one ratio, in markRules order (nil when none).
func ratioMarks(rr RatioResult, e ratioEvidence) []string {
	var out []string
	for _, m := range markRules {
		if m.ratio(rr, e) {
			out = append(out, m.Kind)
		}
	}
	return out
}

// Marks is what MarksOf says of one screening.
type Marks struct {
	List []Mark // in markRules order; empty when the screening stands on filed inputs alone
	// Ratios gives, by by_methodology key and ratio id, the labels of the marks on each marked ratio.
	Ratios map[string]map[string][]string
	// onRatios: the kinds found on any ratio; perRatio: the screening recorded ratio marks (one stored
	// before it did has data_quality.marks null).
	onRatios map[string]bool
	perRatio bool
}

// For is the marks on one methodology's verdict (by its by_methodology key): the kinds on its own
// ratios, and the screening's marks no ratio carries (a suspect market cap). A screening stored before
// ratios carried marks gives the screening's marks.
func (m Marks) For(methodologyKey string) Marks {
	if !m.perRatio {
		return m
	}
	out := Marks{List: []Mark{}, Ratios: map[string]map[string][]string{}, onRatios: m.onRatios, perRatio: true}
	mine := map[string]bool{}
	for _, labels := range m.Ratios[methodologyKey] {
		for _, l := range labels {
			mine[l] = true
		}
	}
	for _, k := range m.List {
		if mine[k.Label] || !m.onRatios[k.Kind] {
			out.List = append(out.List, k)
		}
	}
	if r, ok := m.Ratios[methodologyKey]; ok {
		out.Ratios[methodologyKey] = r
	}
	return out
}

// Any reports whether any mark applies.
func (m Marks) Any() bool { return len(m.List) > 0 }

// Label is the marks' short labels joined: "illustrative, carried forward"; "" without marks.
func (m Marks) Label() string {
	labels := make([]string, len(m.List))
	for i, k := range m.List {
		labels[i] = k.Label
	}
	return strings.Join(labels, ", ")
}

// Suffix is the label in parentheses after a verdict or a number, with a leading space:
// " (illustrative)"; "" without marks.
func (m Marks) Suffix() string {
	if !m.Any() {
		return ""
	}
	return " (" + m.Label() + ")"
}

// Sentence is the marks' sentences joined, for a banner or a report; "" without marks.
func (m Marks) Sentence() string {
	parts := make([]string, len(m.List))
	for i, k := range m.List {
		parts[i] = k.Detail
	}
	return strings.Join(parts, " ")
}

// Kinds is the marks' kinds.
func (m Marks) Kinds() []string {
	out := make([]string, len(m.List))
	for i, k := range m.List {
		out[i] = k.Kind
	}
	return out
}

// MarksOf says which marks apply to a screening: each kind whose rule holds for the screening's
// data_quality or for any of its ratios (as the screening recorded them in each ratio's marks), and,
// per ratio, the labels of its marks. The one rule every surface uses.
func MarksOf(r Result) Marks {
	out := Marks{List: []Mark{}, Ratios: map[string]map[string][]string{}, perRatio: r.DataQuality.Marks != nil}
	onRatio := map[string]bool{}
	out.onRatios = onRatio
	for key, mr := range r.ByMethodology {
		for _, rr := range mr.Ratios {
			if len(rr.Marks) == 0 {
				continue
			}
			if out.Ratios[key] == nil {
				out.Ratios[key] = map[string][]string{}
			}
			for _, k := range rr.Marks {
				onRatio[k] = true
				out.Ratios[key][rr.ID] = append(out.Ratios[key][rr.ID], MarkLabel(k))
			}
		}
	}
	for _, m := range markRules {
		if onRatio[m.Kind] || m.result(&r) {
			out.List = append(out.List, m.Mark)
		}
	}
	return out
}

// MarkLabel is a kind's short label (the kind itself when unknown).
func MarkLabel(kind string) string {
	if i := slices.IndexFunc(markRules, func(m markRule) bool { return m.Kind == kind }); i >= 0 {
		return markRules[i].Label
	}
	return strings.ReplaceAll(kind, "_", " ")
}
