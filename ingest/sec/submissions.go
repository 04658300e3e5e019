package sec

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shariah-screen/shariah"
)

// Submissions is the decoding of EDGAR's submissions JSON
// (https://data.sec.gov/submissions/CIK##########.json): the company's identity, classification and
// its most recent filings (at least a year or 1,000 filings; older ones are in FilingIndex.Files pages).
type Submissions struct {
	CIK                  CIK                `json:"cik"`
	EntityType           string             `json:"entityType"` // "operating" for companies
	Name                 string             `json:"name"`
	SIC                  string             `json:"sic"`
	SICDescription       string             `json:"sicDescription"`
	Tickers              []string           `json:"tickers"`
	Exchanges            []string           `json:"exchanges"`
	FiscalYearEnd        string             `json:"fiscalYearEnd"` // MMDD
	StateOfIncorporation string             `json:"stateOfIncorporation"`
	Addresses            map[string]Address `json:"addresses"` // "business", "mailing"
	FilingIndex          SubmissionFilings  `json:"filings"`   // rows: Filings()
}

// Address is a business or mailing address. StateOrCountry is a US state code or an EDGAR country
// code (e.g. "X0" for the United Kingdom) whose name is in StateOrCountryDescription.
type Address struct {
	Street1                   string `json:"street1"`
	Street2                   string `json:"street2"`
	City                      string `json:"city"`
	StateOrCountry            string `json:"stateOrCountry"`
	ZipCode                   string `json:"zipCode"`
	StateOrCountryDescription string `json:"stateOrCountryDescription"`
}

// SubmissionFilings holds the recent filings (columnar, one array per field, index-aligned) and the
// pages of older ones, which a fetcher may follow.
type SubmissionFilings struct {
	Recent RecentFilings `json:"recent"`
	Files  []FilingsPage `json:"files"`
}

// RecentFilings are the columns of the recent filings; row i of each column describes one filing.
type RecentFilings struct {
	AccessionNumber []string `json:"accessionNumber"`
	FilingDate      []string `json:"filingDate"`
	ReportDate      []string `json:"reportDate"`
	Form            []string `json:"form"`
	Items           []string `json:"items"`
	PrimaryDocument []string `json:"primaryDocument"`
}

// FilingsPage names a file of older filings (same columnar layout as RecentFilings).
type FilingsPage struct {
	Name        string `json:"name"`
	FilingCount int    `json:"filingCount"`
	FilingFrom  string `json:"filingFrom"`
	FilingTo    string `json:"filingTo"`
}

// ParseSubmissions decodes submissions JSON. Columns of unequal lengths are an error: rows would
// misalign and attach one filing's form or date to another's accession number.
func ParseSubmissions(b []byte) (Submissions, error) {
	var s Submissions
	if err := json.Unmarshal(b, &s); err != nil {
		return Submissions{}, fmt.Errorf("submissions: %w", err)
	}
	if s.CIK == "" {
		return Submissions{}, errors.New("submissions: no cik")
	}
	r := s.FilingIndex.Recent
	n := len(r.AccessionNumber)
	for name, col := range map[string][]string{"filingDate": r.FilingDate, "reportDate": r.ReportDate,
		"form": r.Form, "items": r.Items, "primaryDocument": r.PrimaryDocument} {
		if col != nil && len(col) != n {
			return Submissions{}, fmt.Errorf("submissions: recent %s has %d rows, accessionNumber %d", name, len(col), n)
		}
	}
	return s, nil
}

// Filing is one row of the recent filings. Items are the 8-K item codes ("2.02", "9.01"), which
// classify company events (results, leadership changes, ...) without reading the document.
type Filing struct {
	Accession       string
	Form            string
	FilingDate      string
	ReportDate      string
	Items           []string
	PrimaryDocument string
}

// Filings returns the recent filings as rows, in the file's order (newest first).
func (s Submissions) Filings() []Filing {
	r := s.FilingIndex.Recent
	at := func(col []string, i int) string {
		if i < len(col) {
			return col[i]
		}
		return ""
	}
	out := make([]Filing, 0, len(r.AccessionNumber))
	for i, accn := range r.AccessionNumber {
		f := Filing{Accession: accn, Form: at(r.Form, i), FilingDate: at(r.FilingDate, i),
			ReportDate: at(r.ReportDate, i), PrimaryDocument: at(r.PrimaryDocument, i)}
		for _, it := range strings.Split(at(r.Items, i), ",") {
			if it = strings.TrimSpace(it); it != "" {
				f.Items = append(f.Items, it)
			}
		}
		out = append(out, f)
	}
	return out
}

// usStates are the EDGAR state codes of the United States (states, DC and territories).
var usStates = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN
		MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR VI GU AS MP`) {
		usStates[s] = true
	}
}

// Country is the country of the company's business address (else its mailing address): "United
// States" for a US state code, else EDGAR's description of the country code; "" when not stated.
// The state of incorporation is not used: a Delaware incorporation says nothing about where a
// company operates, and foreign companies may incorporate in the US and vice versa.
func (s Submissions) Country() string {
	for _, kind := range []string{"business", "mailing"} {
		a, ok := s.Addresses[kind]
		code := strings.ToUpper(strings.TrimSpace(a.StateOrCountry))
		if !ok || code == "" {
			continue
		}
		if usStates[code] {
			return "United States"
		}
		if d := strings.TrimSpace(a.StateOrCountryDescription); d != "" && !strings.EqualFold(d, code) {
			return d
		}
	}
	return ""
}

// Asset is the reference record the submissions describe: first ticker and exchange, SIC code and
// description (the SIC description is the only industry EDGAR states), CIK and country. An operating
// company is an equity; other entity types (funds, trusts) are left untyped rather than guessed.
func (s Submissions) Asset() shariah.Asset {
	a := shariah.Asset{Name: s.Name, SIC: strings.TrimSpace(s.SIC), CIK: string(s.CIK), Industry: s.SICDescription,
		Country: s.Country(), Source: "sec-submissions"}
	if a.SIC != "" {
		a.SICDescription = s.SICDescription
		a.SICSource = "SEC EDGAR submissions, CIK " + string(s.CIK)
	}
	if a.Industry != "" {
		a.IndustrySource = "SEC EDGAR submissions (SIC description)"
	}
	if len(s.Tickers) > 0 {
		a.Symbol = NormalizeTicker(s.Tickers[0])
	}
	if len(s.Exchanges) > 0 {
		a.Exchange = s.Exchanges[0]
	}
	if s.EntityType == "operating" || s.EntityType == "" {
		a.Type = shariah.Equity
	}
	return a
}
