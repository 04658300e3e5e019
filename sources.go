package shariah

import (
	"fmt"
	"strings"
)

// What a screening's fundamentals stand on, for summaries that say how much of them is filed.
const (
	DataFiled          = "filed"           // every fundamental input used comes from a filing (or a live source)
	DataIllustrative   = "illustrative"    // at least one input is illustrative
	DataNoFundamentals = "no_fundamentals" // no fundamentals on file (or no screening)
)

// FundamentalsSourceOf classifies a company's stored periods the same way: filed when any period
// carries a filed (or live) fact (illustrative values are never kept next to filed ones),
// illustrative when it has only illustrative ones, no_fundamentals when none.
func FundamentalsSourceOf(fs []Fundamentals) string {
	out := DataNoFundamentals
	for _, f := range fs {
		for _, fact := range f.Facts {
			switch fact.Source {
			case SourceFiling, SourceLive:
				return DataFiled
			case SourceIllustrative:
				out = DataIllustrative
			}
		}
	}
	return out
}

// SourceCounts counts results (or companies) by what their fundamentals stand on.
type SourceCounts struct {
	Filed          int `json:"filed"`
	Illustrative   int `json:"illustrative"`
	NoFundamentals int `json:"no_fundamentals"`
}

// Add counts one result of the given source (DataFiled, DataIllustrative, DataNoFundamentals).
func (c *SourceCounts) Add(source string) { c.AddN(source, 1) }

// AddN counts n results of the given source.
func (c *SourceCounts) AddN(source string, n int) {
	switch source {
	case DataFiled:
		c.Filed += n
	case DataIllustrative:
		c.Illustrative += n
	default:
		c.NoFundamentals += n
	}
}

// SourceWeights are the weight shares (percent of an ETF's weight, two decimals) by source of the
// holdings' fundamentals; unresolved holdings count as no_fundamentals.
type SourceWeights struct {
	FiledPct          string `json:"filed_pct"`
	IllustrativePct   string `json:"illustrative_pct"`
	NoFundamentalsPct string `json:"no_fundamentals_pct"`
}

// CompanyKey names the company behind a listing, so that share classes count once: its SEC CIK when
// the record has one (GOOG and GOOGL are one company), else the symbol.
func CompanyKey(a Asset) string {
	if cik := strings.TrimLeft(strings.TrimSpace(a.CIK), "0"); cik != "" {
		return "cik:" + cik
	}
	return a.Symbol
}

// sourceRank orders the sources from the strongest claim to the weakest: a company counts as filed
// only when every listing of it does, and as illustrative when any does.
var sourceRank = map[string]int{DataFiled: 0, DataNoFundamentals: 1, DataIllustrative: 2}

// CompanySources counts distinct companies by source: Add each screened listing with its company
// (CompanyKey); a company whose listings differ counts once, under the weakest source among them.
type CompanySources map[string]string

// Add records a listing of a company with the source of its screening.
func (c CompanySources) Add(company, source string) {
	if old, ok := c[company]; !ok || sourceRank[source] > sourceRank[old] {
		c[company] = source
	}
}

// Counts returns the companies by source.
func (c CompanySources) Counts() SourceCounts {
	var out SourceCounts
	for _, src := range c {
		out.Add(src)
	}
	return out
}

// String reads the counts as a phrase ("2 filed, 501 illustrative, 0 without fundamentals").
func (c SourceCounts) String() string {
	return fmt.Sprintf("%d filed, %d illustrative, %d without fundamentals", c.Filed, c.Illustrative, c.NoFundamentals)
}
