package bulk

import (
	"slices"
	"sort"
	"strings"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// Tally counts verdicts.
type Tally struct {
	Total            int            `json:"total"`
	Compliant        int            `json:"compliant"`
	NonCompliant     int            `json:"non_compliant"`
	Questionable     int            `json:"questionable"`
	InsufficientData int            `json:"insufficient_data"`
	Errors           int            `json:"errors"`
	CompliantPct     shariah.Number `json:"compliance_rate_pct"` // percent (a number), compliant among those with a verdict; 0 when none
}

func (t *Tally) add(status string) {
	t.Total++
	switch strings.ToUpper(status) {
	case "COMPLIANT":
		t.Compliant++
	case "NON_COMPLIANT":
		t.NonCompliant++
	case "QUESTIONABLE":
		t.Questionable++
	case "INSUFFICIENT_DATA":
		t.InsufficientData++
	default:
		t.Errors++
	}
}

func (t *Tally) finish() {
	den := t.Compliant + t.NonCompliant + t.Questionable
	t.CompliantPct = market.PercentNumber(int64(t.Compliant), int64(den))
}

// Summary aggregates a run.
type Summary struct {
	Overall       Tally            `json:"overall"`
	ByMethodology map[string]Tally `json:"by_methodology"`
	BySector      map[string]Tally `json:"by_sector"`
	TopCompliant  []ItemView       `json:"top_compliant"`
	StatusChanges int              `json:"status_changes"`
	// DataSources counts the run's screened companies (one result each; errors excluded) by what their
	// fundamentals stand on: filed, illustrative or none.
	DataSources shariah.SourceCounts `json:"data_sources"`
	// CompanyDataSources counts the distinct companies among them (share classes such as GOOG and
	// GOOGL count once; CompanySources).
	CompanyDataSources shariah.SourceCounts `json:"company_data_sources"`
}

// Summarize builds a run's summary: statistics by methodology and sector, the overall rate, and the
// top compliant stocks (most methodologies compliant, then lowest debt ratio; ten at most).
// cat, when given, tells the companies behind the symbols (CompanyKey); without it each symbol is one.
func Summarize(items []Item, cat *catalog.Catalog) Summary {
	s := Summary{ByMethodology: map[string]Tally{}, BySector: map[string]Tally{}, TopCompliant: []ItemView{}}
	var top []ItemView
	companies := shariah.CompanySources{}
	for _, it := range items {
		v := it.View("")
		s.Overall.add(v.Status)
		sector := v.Sector
		if sector == "" {
			sector = "Unclassified"
		}
		t := s.BySector[sector]
		t.add(v.Status)
		s.BySector[sector] = t
		for m, verdict := range v.Methodologies {
			t := s.ByMethodology[m]
			t.add(verdict)
			s.ByMethodology[m] = t
		}
		if it.StatusChanged {
			s.StatusChanges++
		}
		if it.Result != nil && !it.HasError {
			src := screening.DataSourceOf(*it.Result)
			s.DataSources.Add(src)
			companies.Add(companyOf(cat, it.Symbol), src)
		}
		if v.Status == "COMPLIANT" {
			top = append(top, v)
		}
	}
	s.CompanyDataSources = companies.Counts()
	s.Overall.finish()
	for k, t := range s.BySector {
		t.finish()
		s.BySector[k] = t
	}
	for k, t := range s.ByMethodology {
		t.finish()
		s.ByMethodology[k] = t
	}
	passes := func(v ItemView) int {
		n := 0
		for _, verdict := range v.Methodologies {
			if verdict == screening.Compliant {
				n++
			}
		}
		return n
	}
	sort.SliceStable(top, func(i, j int) bool {
		if pi, pj := passes(top[i]), passes(top[j]); pi != pj {
			return pi > pj
		}
		return top[i].debtRatio().LessThan(top[j].debtRatio())
	})
	if len(top) > 10 {
		top = top[:10]
	}
	s.TopCompliant = append(s.TopCompliant, top...)
	return s
}

// StatusChange is a symbol whose status differs between two runs.
type StatusChange struct {
	Symbol string `json:"symbol"`
	From   string `json:"from"`
	To     string `json:"to"`
	// Moved are the ratios that moved between the runs (MovedRatios): why the status changed.
	Moved []RatioMove `json:"moved"`
}

// RatioMove is one ratio of a methodology whose value differs between two runs' results.
type RatioMove struct {
	Methodology string          `json:"methodology"` // the methodology id (ftse, msci, ...)
	Ratio       string          `json:"ratio"`       // the rule's id (debt, cash, ...)
	From        *shariah.Number `json:"from"`        // fraction; null when run A could not compute it
	To          *shariah.Number `json:"to"`
	ThresholdBP shariah.Number  `json:"threshold_bp"` // run B's
	// Crossed: the ratio passed in one run and failed in the other (both known).
	Crossed bool `json:"crossed"`
}

// MovedRatios lists the ratios that moved between two results of a symbol, of the methodologies whose
// verdict changed (of every methodology when none did: a status can change with the rules that combine
// the verdicts). The ones that crossed their threshold come first, then by methodology and in the
// methodology's rule order. A ratio unknown in both results has not moved.
func MovedRatios(a, b *screening.Result) []RatioMove {
	out := []RatioMove{}
	if a == nil || b == nil {
		return out
	}
	keys := make([]string, 0, len(b.ByMethodology))
	for k := range b.ByMethodology {
		if _, ok := a.ByMethodology[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	changed := keys[:0:0]
	for _, k := range keys {
		if !strings.EqualFold(a.ByMethodology[k].Verdict, b.ByMethodology[k].Verdict) {
			changed = append(changed, k)
		}
	}
	if len(changed) > 0 {
		keys = changed
	}
	for _, k := range keys {
		ma, mb := a.ByMethodology[k], b.ByMethodology[k]
		for _, rb := range mb.Ratios {
			i := slices.IndexFunc(ma.Ratios, func(r screening.RatioResult) bool { return r.ID == rb.ID })
			if i < 0 {
				continue
			}
			ra := ma.Ratios[i]
			if ra.Value == nil && rb.Value == nil || ra.Value != nil && rb.Value != nil && ra.Value.Equal(rb.Value.Decimal) {
				continue
			}
			out = append(out, RatioMove{Methodology: mb.ID, Ratio: rb.ID, From: ra.Value, To: rb.Value, ThresholdBP: rb.ThresholdBP,
				Crossed: ra.Pass != nil && rb.Pass != nil && *ra.Pass != *rb.Pass})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Crossed && !out[j].Crossed })
	return out
}

// Comparison compares run A (before) with run B (after).
type Comparison struct {
	RunA              string         `json:"run_a"`
	RunB              string         `json:"run_b"`
	Changed           []StatusChange `json:"changed"`
	NewlyCompliant    []string       `json:"newly_compliant"`
	NewlyNonCompliant []string       `json:"newly_non_compliant"`
	Added             []string       `json:"added"`
	Removed           []string       `json:"removed"`
	Unchanged         int            `json:"unchanged"`
}

// CompareRuns lists the symbols whose status changed (with the ratios that moved, from the two runs'
// stored results), became compliant or non-compliant, and the symbols added to or removed from the
// index between two runs.
func CompareRuns(a, b string, itemsA, itemsB []Item) Comparison {
	c := Comparison{RunA: a, RunB: b, Changed: []StatusChange{}, NewlyCompliant: []string{}, NewlyNonCompliant: []string{}, Added: []string{}, Removed: []string{}}
	before := map[string]*Item{}
	for i := range itemsA {
		before[itemsA[i].Symbol] = &itemsA[i]
	}
	after := map[string]bool{}
	for _, it := range itemsB {
		after[it.Symbol] = true
		was, ok := before[it.Symbol]
		switch {
		case !ok:
			c.Added = append(c.Added, it.Symbol)
		case was.Status != it.Status:
			c.Changed = append(c.Changed, StatusChange{Symbol: it.Symbol, From: was.Status, To: it.Status, Moved: MovedRatios(was.Result, it.Result)})
			if it.Status == "COMPLIANT" {
				c.NewlyCompliant = append(c.NewlyCompliant, it.Symbol)
			}
			if it.Status == "NON_COMPLIANT" {
				c.NewlyNonCompliant = append(c.NewlyNonCompliant, it.Symbol)
			}
		default:
			c.Unchanged++
		}
	}
	for _, it := range itemsA {
		if !after[it.Symbol] {
			c.Removed = append(c.Removed, it.Symbol)
		}
	}
	sort.Slice(c.Changed, func(i, j int) bool { return c.Changed[i].Symbol < c.Changed[j].Symbol })
	for _, l := range [][]string{c.NewlyCompliant, c.NewlyNonCompliant, c.Added, c.Removed} {
		sort.Strings(l)
	}
	return c
}

// companyOf is the company of a symbol in a catalog (CompanyKey), or the symbol itself without one.
func companyOf(cat *catalog.Catalog, symbol string) string {
	if cat != nil {
		if a, ok := cat.Lookup(symbol); ok {
			return shariah.CompanyKey(a)
		}
	}
	return symbol
}
