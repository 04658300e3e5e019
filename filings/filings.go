// Package filings holds a company's SEC filings (filings.go), the 8-K events read from them
// (events.go) and its news (news.go). It imports the kernel only (the SEC identifiers, edgar.go, are
// kernel vocabulary: the screening's provenance links to them). The staleness of a screening against
// the filings made since is the screening's (screening/staleness.go).
package filings

import (
	"context"
	"strings"
	"time"

	"github.com/shariah-screen/shariah"
)

// Filing is one SEC filing of a company.
type Filing struct {
	Accession       string   `json:"accession_number"`
	Form            string   `json:"form"`
	FilingDate      string   `json:"filing_date"`
	ReportDate      string   `json:"report_date"`
	Items           []string `json:"items"` // 8-K item codes
	PrimaryDocument string   `json:"primary_document"`
	URL             string   `json:"url"`
	Source          string   `json:"source"`
}

// XBRLFact is one reported XBRL value of a screening concept.
type XBRLFact struct {
	Concept   string         `json:"concept"`
	Unit      string         `json:"unit"`
	Start     string         `json:"start,omitempty"`
	End       string         `json:"end"`
	Value     shariah.Number `json:"value"`
	Accession string         `json:"accession_number"`
	Form      string         `json:"form"`
	Filed     string         `json:"filed"`
	FY        int            `json:"fiscal_year"`
	FP        string         `json:"fiscal_period"`
	Frame     string         `json:"frame,omitempty"`
}

// Store holds filings and XBRL facts per symbol.
type Store interface {
	PutFilings(ctx context.Context, symbol string, fs []Filing) error
	Filings(ctx context.Context, symbol string) ([]Filing, error)
	PutFacts(ctx context.Context, symbol string, fs []XBRLFact) error
	Facts(ctx context.Context, symbol string) ([]XBRLFact, error)
}

// SourceHealth is the state of one ingest source.
type SourceHealth struct {
	Name          string     `json:"name"`
	Schedule      string     `json:"schedule"`
	Status        string     `json:"status"` // ok, failing, disabled, never_run
	LastRunAt     *time.Time `json:"last_run_at"`
	LastSuccessAt *time.Time `json:"last_success_at"`
	LastErrorAt   *time.Time `json:"last_error_at"`
	LastError     string     `json:"last_error"`
	Items         int        `json:"items_last_run"`
	ItemsTotal    int64      `json:"items_total"`
	Runs          int64      `json:"runs"`
	Failures      int64      `json:"failures"`
	LagSeconds    *int64     `json:"lag_seconds"` // since the last success
	Detail        string     `json:"detail,omitempty"`
}

// HealthStore records the health of ingest sources, shared by every process.
type HealthStore interface {
	PutHealth(ctx context.Context, h SourceHealth) error
	Health(ctx context.Context) ([]SourceHealth, error)
	// TryLock takes a named lock for ttl unless another process holds it; release frees it.
	TryLock(ctx context.Context, name string, ttl time.Duration) (release func(), ok bool, err error)
}

// TypeAll asks FilterFilings for every filing, insider forms included.
const TypeAll = "all"

// Types are the forms a filings listing can be narrowed to (amendments included), besides
// TypeAll. Without a form, a listing shows all of these: the periodic and current reports people
// read, not the insider Forms 3/4/5 and 144 that outnumber them (AAPL: 46 Form 4s and 17 Forms 144 among
// its latest 100 filings, next to one 10-K and three 10-Qs).
var Types = []string{"10-K", "10-Q", "8-K", "20-F", "40-F", "6-K"}

// reportForms are Types and their transition-report variants (10-KT, 10-QT), the default listing.
var reportForms = map[string]bool{"10-K": true, "10-Q": true, "8-K": true, "20-F": true, "40-F": true, "6-K": true,
	"10-KT": true, "10-QT": true}

// ParseFilingType reads a filing_type as REST and MCP take it: "" (the periodic and current reports),
// "all" (TypeAll) or one of Types, in any case and with spaces around ("8-k" is 8-K). It
// returns the value FilterFilings takes, and false for anything else.
func ParseFilingType(raw string) (string, bool) {
	s := strings.ToUpper(strings.TrimSpace(raw))
	switch {
	case s == "":
		return "", true
	case s == strings.ToUpper(TypeAll):
		return TypeAll, true
	}
	for _, f := range Types {
		if s == f {
			return f, true
		}
	}
	return "", false
}

// TypeMessage is the validation message for a filing_type ParseFilingType refuses.
var TypeMessage = "must be one of " + strings.Join(Types, ", ") + " or all (without it: all of those forms, their amendments and 10-KT/10-QT)"

// FilterFilings pages the filings of a form, newest first as stored: form is one of Types
// (amendments included), TypeAll, or "" for the periodic and current reports (Types, their
// amendments and transition reports). It returns the page (at most limit, after offset) and the number
// of filings that match.
func FilterFilings(all []Filing, form string, limit, offset int) ([]Filing, int) {
	out := []Filing{}
	total := 0
	for _, f := range all {
		base := strings.TrimSuffix(f.Form, "/A")
		var match bool
		switch form {
		case TypeAll:
			match = true
		case "":
			match = reportForms[base]
		default:
			match = base == form
		}
		if !match {
			continue
		}
		if total >= offset && len(out) < limit {
			out = append(out, f)
		}
		total++
	}
	return out, total
}

// FilterFacts keeps the facts of a concept, named with or without its taxonomy ("Assets",
// "us-gaap:Assets"; "" for all), and their total before the limit.
func FilterFacts(all []XBRLFact, concept string, limit int) ([]XBRLFact, int) {
	out := []XBRLFact{}
	for _, f := range all {
		_, name, _ := strings.Cut(f.Concept, ":")
		if concept == "" || strings.EqualFold(f.Concept, concept) || strings.EqualFold(name, concept) {
			out = append(out, f)
		}
	}
	return out[:min(limit, len(out))], len(out)
}
