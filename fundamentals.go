package shariah

import (
	"sort"
	"strings"
)

// Field names a screening input of a fundamentals period (the data pack's column names).
type Field string

// The inputs of a fundamentals period (data-pack columns of fundamentals.csv).
const (
	TotalAssets       Field = "total_assets"
	TotalDebt         Field = "total_debt"
	CashAndSecurities Field = "cash_and_securities"
	Receivables       Field = "receivables"
	TotalRevenue      Field = "total_revenue"
	InterestIncome    Field = "interest_income"
	ImpureRevenue     Field = "impure_revenue" // revenue from prohibited activities, interest income excluded
	SharesOutstanding Field = "shares_outstanding"
	Inventory         Field = "inventory"
)

// Fields lists every input in the data pack's column order.
var Fields = []Field{TotalAssets, TotalDebt, CashAndSecurities, Receivables, TotalRevenue, InterestIncome,
	ImpureRevenue, SharesOutstanding, Inventory}

// Fact is one input value with its provenance.
type Fact struct {
	Value  Number `json:"value"`
	Source string `json:"source"`          // filing, live or illustrative
	Ref    string `json:"source_ref"`      // e.g. the SEC accession number of the filing
	Filed  string `json:"filed,omitempty"` // filing date (YYYY-MM-DD)
	Form   string `json:"form,omitempty"`  // 10-K, 10-Q, ...
	Tag    string `json:"tag,omitempty"`   // XBRL tag(s) the value came from
	// Document is the filing's primary document the value was read from (inline XBRL), and CIK the
	// filer: with Form and Filed they identify the filing when the accession number is not known.
	Document string `json:"document,omitempty"`
	CIK      string `json:"cik,omitempty"`
	Note     string `json:"note,omitempty"`   // how the value was derived, when it was
	AsOf     string `json:"as_of,omitempty"`  // instant of a point-in-time value (shares outstanding)
	Period   string `json:"period,omitempty"` // fiscal period the value was reported for, when it differs
	// Classes are the parts of a value summed over share classes (shares outstanding of a multi-class
	// issuer); empty otherwise.
	Classes []ShareClass `json:"classes,omitempty"`
	// Components are the filed lines summed into the value (cash and equivalents plus short-term
	// investments; the debt lines), each by its concept and value, so a reader can redo the sum from the
	// filing; empty for a value read from one line.
	Components []Component `json:"components,omitempty"`
}

// Component is one filed line of a summed input: its concept and the value filed.
type Component struct {
	Concept string `json:"concept"`
	Value   Number `json:"value"`
}

// SumText writes the sum a fact stands on, "A 1 + B 2 = 3", or "" for a value of one line.
func (f Fact) SumText() string {
	if len(f.Components) == 0 {
		return ""
	}
	parts := make([]string, len(f.Components))
	for i, c := range f.Components {
		parts[i] = c.Concept + " " + c.Value.Decimal.String()
	}
	return strings.Join(parts, " + ") + " = " + f.Value.Decimal.String()
}

// ShareClass is one class of common stock of a multi-class issuer: its name as the filing tags it
// (us-gaap:CommonClassAMember; empty when the source does not name it) and its shares outstanding.
type ShareClass struct {
	Class  string `json:"class"`
	Shares Number `json:"shares"`
}

// Fundamentals are a company's screening inputs for one reporting period. A field absent from Facts is
// unknown: it is never guessed.
type Fundamentals struct {
	Symbol     string         `json:"symbol"`
	PeriodEnd  string         `json:"period_end"` // YYYY-MM-DD
	Period     string         `json:"period"`     // Q1..Q4 or FY
	FiscalYear int            `json:"fiscal_year,omitempty"`
	Currency   string         `json:"currency,omitempty"`
	Facts      map[Field]Fact `json:"facts"`
	// Missing names the inputs a source was expected to have but did not report, with why.
	Missing map[Field]string `json:"missing,omitempty"`
}

// Sources lists the distinct sources of the period's facts, sorted.
func (f Fundamentals) Sources() []string {
	seen := map[string]bool{}
	var out []string
	for _, fact := range f.Facts {
		if !seen[fact.Source] {
			seen[fact.Source] = true
			out = append(out, fact.Source)
		}
	}
	sort.Strings(out)
	return out
}

// SortFundamentals orders periods oldest first (period end, then FY after the Q4 of the same end).
func SortFundamentals(fs []Fundamentals) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].PeriodEnd != fs[j].PeriodEnd {
			return fs[i].PeriodEnd < fs[j].PeriodEnd
		}
		// "FY" sorts before "Q4" as text; the year closes after its last quarter.
		return periodRank(fs[i].Period) < periodRank(fs[j].Period)
	})
}

func periodRank(p string) int {
	if p == "FY" {
		return 5
	}
	if len(p) == 2 && p[0] == 'Q' {
		return int(p[1] - '0')
	}
	return 0
}
