package screening

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shariah-screen/shariah"
)

// Change kinds: what moved between two stored results of one symbol and ruleset.
const (
	ChangeOverall     = "overall"     // compliance_status
	ChangeMethodology = "methodology" // a methodology's verdict
	ChangeDataSource  = "data_source" // what the fundamentals stand on (illustrative, filed, no_fundamentals)
)

// Causes of a change: the bulk run that screened it, a filing new to the result, or a screening asked
// for on its own (the reference data or the clock moved).
const (
	CauseBulkRun   = "bulk_run"
	CauseFiling    = "filing"
	CauseScreening = "screening"
)

// Change is one change of a stored verdict: a screening result replaced another of the same symbol and
// ruleset, and the overall verdict, a methodology's verdict or the data source differs. The change feed
// (GET /api/changes, MCP get_verdict_changes) serves these in the order they were recorded.
type Change struct {
	ID      string       `json:"id"` // the change log's id ("<ms>-<seq>"), also the feed's cursor
	At      time.Time    `json:"at"` // when the newer result was screened (UTC)
	Symbol  string       `json:"symbol"`
	Ruleset string       `json:"ruleset"`
	Kinds   []string     `json:"kinds"` // overall, methodology, data_source: what moved
	Before  VerdictState `json:"before"`
	After   VerdictState `json:"after"`
	// Crossed are the ratios whose pass/fail flipped, with their values before and after.
	Crossed []CrossedRatio `json:"crossed_ratios"`
	Cause   Cause          `json:"cause"`
}

// VerdictState is what a change compares of one result: the overall verdict, each methodology's (keyed
// as by_methodology: AAOIFI, DJIM, ..., SP), the data source, and when it was screened. A change's
// before is the state of the previous change's after (the last state the log recorded), so changes
// chain; two changes with the same before.screened_at describe one change (recorded twice only when a
// process died between recording it and noting so).
type VerdictState struct {
	ComplianceStatus string            `json:"compliance_status"`
	IsCompliant      *bool             `json:"is_compliant"`
	Methodologies    map[string]string `json:"methodologies"`
	DataSource       string            `json:"data_source"`
	Period           string            `json:"period,omitempty"` // the screened period ("FY ending 2025-12-31")
	ScreenedAt       time.Time         `json:"screened_at"`
}

// CrossedRatio is a ratio of a methodology that passed before and fails after, or the reverse. Values
// are fractions (8 decimals) as the result's ratios carry them; the threshold is in basis points.
type CrossedRatio struct {
	Methodology string          `json:"methodology"` // by_methodology key
	Ratio       string          `json:"ratio"`       // the ratio's id (debt, cash, receivables, impure_revenue, ...)
	ThresholdBP shariah.Number  `json:"threshold_bp"`
	Comparator  string          `json:"comparator"`
	Before      *shariah.Number `json:"before"`
	After       *shariah.Number `json:"after"`
	PassBefore  bool            `json:"pass_before"`
	PassAfter   bool            `json:"pass_after"`
}

// Cause is what made the newer result: the bulk run that screened it (kind bulk_run), the filings
// (accession numbers) it stands on that the older one did not (kind filing when there is no run), or
// neither (a screening on its own).
type Cause struct {
	Kind    string   `json:"kind"` // bulk_run, filing, screening
	RunID   string   `json:"run_id,omitempty"`
	Filings []string `json:"filings,omitempty"`
}

// ChangeBasis is what the change rule compares of a stored result: its verdict state, each ratio's
// value and pass, and the filings it stands on. The result store keeps the basis of the last change it
// recorded per symbol and ruleset, and diffs each new result against it (ChangeFrom).
type ChangeBasis struct {
	State      VerdictState `json:"state"`
	Ratios     []BasisRatio `json:"ratios"`
	SourceRefs []string     `json:"source_refs"`
}

// BasisRatio is one ratio of a methodology in a ChangeBasis.
type BasisRatio struct {
	Methodology string          `json:"m"` // by_methodology key
	ID          string          `json:"id"`
	ThresholdBP shariah.Number  `json:"bp"`
	Comparator  string          `json:"cmp"`
	Value       *shariah.Number `json:"v"`
	Pass        *bool           `json:"pass"`
}

// BasisOf is the change basis of a result.
func BasisOf(r Result) ChangeBasis {
	ms := make(map[string]string, len(r.ByMethodology))
	keys := make([]string, 0, len(r.ByMethodology))
	for k, mr := range r.ByMethodology {
		ms[k] = mr.Verdict
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := ChangeBasis{State: VerdictState{ComplianceStatus: r.ComplianceStatus, IsCompliant: r.IsCompliant, Methodologies: ms,
		DataSource: DataSourceOf(r), Period: r.DataQuality.PeriodLabel, ScreenedAt: r.ScreenedAt.UTC()},
		Ratios: []BasisRatio{}, SourceRefs: r.DataQuality.SourceRefs}
	for _, k := range keys {
		for _, ra := range r.ByMethodology[k].Ratios {
			b.Ratios = append(b.Ratios, BasisRatio{Methodology: k, ID: ra.ID, ThresholdBP: ra.ThresholdBP,
				Comparator: ra.Comparator, Value: ra.Value, Pass: ra.Pass})
		}
	}
	return b
}

// VerdictKey is what ChangeFrom compares of a result, as one string: two results have the same key
// exactly when no change lies between them (the overall verdict, every methodology's, the data source).
// The result store compares keys first, so a write whose verdicts stand costs no decoding.
func VerdictKey(r Result) string {
	keys := make([]string, 0, len(r.ByMethodology))
	for k := range r.ByMethodology {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(r.ComplianceStatus)
	for _, k := range keys {
		b.WriteString("|" + k + "=" + r.ByMethodology[k].Verdict)
	}
	b.WriteString("|" + DataSourceOf(r))
	return b.String()
}

// ChangeFrom is the rule of change events: after is stored where before's result was (same symbol and
// ruleset); ok is true when the overall verdict, a methodology's verdict (one appearing or disappearing
// counts) or the data source differs, and the change says what, with the ratios whose pass flipped.
// Ratio values that move without a verdict moving are no change. The change has no id until it is
// recorded.
func ChangeFrom(before ChangeBasis, after Result) (Change, bool) {
	a := BasisOf(after)
	b := before.State
	var kinds []string
	if b.ComplianceStatus != a.State.ComplianceStatus {
		kinds = append(kinds, ChangeOverall)
	}
	if !maps.Equal(b.Methodologies, a.State.Methodologies) {
		kinds = append(kinds, ChangeMethodology)
	}
	if b.DataSource != a.State.DataSource {
		kinds = append(kinds, ChangeDataSource)
	}
	if len(kinds) == 0 {
		return Change{}, false
	}
	return Change{At: a.State.ScreenedAt, Symbol: after.Symbol, Ruleset: after.Ruleset.Name, Kinds: kinds,
		Before: b, After: a.State, Crossed: crossedRatios(before.Ratios, a.Ratios), Cause: causeOf(before, after)}, true
}

// DiffResults is ChangeFrom of two results.
func DiffResults(before, after Result) (Change, bool) { return ChangeFrom(BasisOf(before), after) }

// crossedRatios lists the ratios known on both sides whose pass differs, in after's order (methodology
// key, then the methodology's ratio order).
func crossedRatios(before, after []BasisRatio) []CrossedRatio {
	out := []CrossedRatio{}
	for _, ra := range after {
		i := slices.IndexFunc(before, func(x BasisRatio) bool { return x.Methodology == ra.Methodology && x.ID == ra.ID })
		if i < 0 || ra.Pass == nil || before[i].Pass == nil || *ra.Pass == *before[i].Pass {
			continue
		}
		out = append(out, CrossedRatio{Methodology: ra.Methodology, Ratio: ra.ID, ThresholdBP: ra.ThresholdBP, Comparator: ra.Comparator,
			Before: before[i].Value, After: ra.Value, PassBefore: *before[i].Pass, PassAfter: *ra.Pass})
	}
	return out
}

// causeOf names what made after: its bulk run (when a run screened it) and the filings it stands on that
// before did not (accession numbers); a screening on its own when neither.
func causeOf(before ChangeBasis, after Result) Cause {
	c := Cause{Kind: CauseScreening}
	for _, ref := range after.DataQuality.SourceRefs {
		if shariah.IsAccession(ref) && !slices.Contains(before.SourceRefs, ref) {
			c.Kind, c.Filings = CauseFiling, append(c.Filings, ref)
		}
	}
	if after.RunID != "" {
		c.Kind, c.RunID = CauseBulkRun, after.RunID
	}
	return c
}
