package sec

import (
	"encoding/json"
	"errors"
	"fmt"
)

// CompanyFacts is the minimal decoding of EDGAR's companyfacts JSON
// (https://data.sec.gov/api/xbrl/companyfacts/CIK##########.json): every non-dimensional XBRL fact a
// company filed, by taxonomy ("us-gaap", "dei", ...) and tag. It keeps only what the screening
// inputs and their provenance need.
type CompanyFacts struct {
	CIK        CIK                           `json:"cik"`
	EntityName string                        `json:"entityName"`
	Facts      map[string]map[string]Concept `json:"facts"`
}

// Concept is one XBRL tag of a company: its label and its facts by unit ("USD", "shares",
// "USD/shares", ...). Facts of different units are different quantities and are never mixed.
type Concept struct {
	Label string            `json:"label"`
	Units map[string][]Fact `json:"units"`
}

// Fact is one reported value. Instants (balance-sheet items, shares outstanding) have no Start;
// durations (revenue, income) run from Start to End inclusive. Accn, Form and Filed name the filing
// that reported it; FY and FP are that filing's fiscal year and period as its filer tagged them (not
// the fact's own period: a 10-Q's prior-year comparatives carry the 10-Q's FY and FP). Frame is the
// calendar period the SEC assigned to one fact per tag and period, usually the latest filed.
type Fact struct {
	Start string      `json:"start,omitempty"`
	End   string      `json:"end"`
	Val   json.Number `json:"val"`
	Accn  string      `json:"accn"`
	FY    int         `json:"fy"`
	FP    string      `json:"fp"`
	Form  string      `json:"form"`
	Filed string      `json:"filed"`
	Frame string      `json:"frame,omitempty"`
	// Class is the share-class member (us-gaap:CommonClassAMember) of a cover-page shares-outstanding
	// fact. Companyfacts drops dimensions, so only the inline-XBRL reader sets it.
	Class string `json:"class,omitempty"`
	// Doc is the primary document the fact was read from (inline-XBRL reader only), the provenance
	// when the accession number is not known.
	Doc string `json:"doc,omitempty"`
}

// ParseCompanyFacts decodes companyfacts JSON. Values stay json.Number so they convert to exact
// decimals; a document without a CIK is rejected because nothing downstream could be attributed.
func ParseCompanyFacts(b []byte) (CompanyFacts, error) {
	var cf CompanyFacts
	if err := json.Unmarshal(b, &cf); err != nil {
		return CompanyFacts{}, fmt.Errorf("companyfacts: %w", err)
	}
	if cf.CIK == "" {
		return CompanyFacts{}, errors.New("companyfacts: no cik")
	}
	return cf, nil
}

// ErrNoUSGAAP reports companyfacts without us-gaap facts (IFRS filers such as 20-F filers, or
// companies that never filed XBRL financial statements): the tag table below does not apply to them.
var ErrNoUSGAAP = errors.New("companyfacts: no us-gaap facts")
