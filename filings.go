package shariah

import (
	"context"
	"fmt"
	"strings"
	"time"
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

// FilingEvent is an 8-K filing read as an event: its items with descriptions and how much it matters to
// a screening.
type FilingEvent struct {
	Accession string      `json:"accession_number"`
	Date      string      `json:"date"`
	Form      string      `json:"form"`
	Items     []EventItem `json:"items"`
	Relevance string      `json:"compliance_relevance"` // high, medium, low
	Reason    string      `json:"reason"`
	Material  bool        `json:"material"` // high relevance: may change a screening's inputs
	URL       string      `json:"url"`
}

// EventItem is one 8-K item.
type EventItem struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

// XBRLFact is one reported XBRL value of a screening concept.
type XBRLFact struct {
	Concept   string `json:"concept"`
	Unit      string `json:"unit"`
	Start     string `json:"start,omitempty"`
	End       string `json:"end"`
	Value     Number `json:"value"`
	Accession string `json:"accession_number"`
	Form      string `json:"form"`
	Filed     string `json:"filed"`
	FY        int    `json:"fiscal_year"`
	FP        string `json:"fiscal_period"`
	Frame     string `json:"frame,omitempty"`
}

// FilingStore holds filings and XBRL facts per symbol.
type FilingStore interface {
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

// TrajectoryPoint is one quarter of a company's ratio series.
type TrajectoryPoint struct {
	PeriodEnd       string   `json:"period_end"`
	Period          string   `json:"period"`
	FiscalYear      int      `json:"fiscal_year"`
	DebtAssets      *float64 `json:"debt_to_assets"`
	CashAssets      *float64 `json:"cash_to_assets"`
	LiquidityAssets *float64 `json:"liquidity_to_assets"` // (cash and securities + receivables) / total assets
	InterestRevenue *float64 `json:"interest_to_revenue"`
	Source          string   `json:"source"`
	Accession       string   `json:"accession_number"`
}

// TrajectoryStore holds the quarterly ratio series (ClickHouse).
type TrajectoryStore interface {
	PutTrajectory(ctx context.Context, symbol string, pts []TrajectoryPoint) error
	// Trajectory returns the last n quarters, oldest first.
	Trajectory(ctx context.Context, symbol string, n int) ([]TrajectoryPoint, error)
}

// TrajectoryOf computes the quarterly ratio points of a company's fundamentals (quarters only).
func TrajectoryOf(fs []Fundamentals) []TrajectoryPoint {
	var out []TrajectoryPoint
	for _, f := range fs {
		if f.Period == "FY" {
			continue
		}
		ta, ok := f.Facts[TotalAssets]
		if !ok || !ta.Value.IsPositive() {
			continue
		}
		p := TrajectoryPoint{PeriodEnd: f.PeriodEnd, Period: f.Period, FiscalYear: f.FiscalYear, Source: ta.Source, Accession: ta.Ref}
		rs := BasicRatios(f)
		get := func(name string) *float64 {
			if v, ok := rs[name]; ok {
				return &v
			}
			return nil
		}
		p.DebtAssets, p.CashAssets = get(RatioDebtAssets), get(RatioCashAssets)
		p.LiquidityAssets, p.InterestRevenue = get(RatioLiquidityAssets), get(RatioInterestRevenue)
		out = append(out, p)
	}
	return out
}

// ItemDescriptions name the 8-K items (SEC Form 8-K instructions).
var ItemDescriptions = map[string]string{
	"1.01": "Entry into a material definitive agreement", "1.02": "Termination of a material definitive agreement",
	"1.03": "Bankruptcy or receivership", "1.04": "Mine safety", "1.05": "Material cybersecurity incidents",
	"2.01": "Completion of acquisition or disposition of assets", "2.02": "Results of operations and financial condition",
	"2.03": "Creation of a direct financial obligation", "2.04": "Triggering events that accelerate a financial obligation",
	"2.05": "Costs of exit or disposal activities", "2.06": "Material impairments",
	"3.01": "Notice of delisting or failure to satisfy a listing rule", "3.02": "Unregistered sales of equity securities",
	"3.03": "Material modification to rights of security holders", "4.01": "Changes in the registrant's certifying accountant",
	"4.02": "Non-reliance on previously issued financial statements", "5.01": "Changes in control of the registrant",
	"5.02": "Departure or appointment of directors or officers", "5.03": "Amendments to articles or bylaws; change in fiscal year",
	"5.07": "Submission of matters to a vote of security holders", "7.01": "Regulation FD disclosure",
	"8.01": "Other events", "9.01": "Financial statements and exhibits",
}

// EventsOf reads 8-K filings as events with their items and relevance.
func EventsOf(filings []Filing, relevance func([]string) (string, string)) []FilingEvent {
	var out []FilingEvent
	for _, f := range filings {
		if f.Form != "8-K" && f.Form != "8-K/A" {
			continue
		}
		ev := FilingEvent{Accession: f.Accession, Date: f.FilingDate, Form: f.Form, URL: f.URL, Items: []EventItem{},
			Relevance: "low", Reason: "no item of consequence"}
		for _, it := range f.Items {
			ev.Items = append(ev.Items, EventItem{Code: it, Description: ItemDescriptions[it]})
		}
		if relevance != nil {
			ev.Relevance, ev.Reason = relevance(f.Items)
		}
		ev.Material = ev.Relevance == "high"
		out = append(out, ev)
	}
	return out
}

// TrajectorySummary says in one line where the ratios went over the quarters given (oldest first).
func TrajectorySummary(pts []TrajectoryPoint) string {
	if len(pts) < 2 {
		return "Not enough quarters on file for a direction."
	}
	first, last := pts[0], pts[len(pts)-1]
	var parts []string
	move := func(name string, a, b *float64) {
		if a == nil || b == nil {
			return
		}
		verb := "was flat at"
		switch d := *b - *a; {
		case d > 0.005:
			verb = "rose from"
		case d < -0.005:
			verb = "fell from"
		}
		if verb == "was flat at" {
			parts = append(parts, fmt.Sprintf("%s %s %.2f%%", name, verb, *b*100))
		} else {
			parts = append(parts, fmt.Sprintf("%s %s %.2f%% to %.2f%%", name, verb, *a*100, *b*100))
		}
	}
	move("debt/assets", first.DebtAssets, last.DebtAssets)
	move("cash/assets", first.CashAssets, last.CashAssets)
	move("liquidity/assets", first.LiquidityAssets, last.LiquidityAssets)
	move("interest/revenue", first.InterestRevenue, last.InterestRevenue)
	if len(parts) == 0 {
		return "The ratios are not available for these quarters."
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + fmt.Sprintf(" over %d quarters (%s to %s).", len(pts), first.PeriodEnd, last.PeriodEnd)
}

// Staleness says whether a cached screening may rest on outdated inputs.
type Staleness struct {
	Symbol            string        `json:"symbol"`
	ScreenedAt        time.Time     `json:"screened_at"`
	FundamentalsAsOf  string        `json:"fundamentals_as_of"`
	Stale             bool          `json:"stale"`
	Reason            string        `json:"reason"`
	SinceScreening    []FilingEvent `json:"material_filings_since_screening"`
	SinceData         []FilingEvent `json:"material_filings_since_data"`
	NewerPeriodicRpts []Filing      `json:"newer_periodic_reports"`
}

// StalenessOf compares a screening with the filings since: a material 8-K filed on or after the day it
// was screened, or a 10-Q/10-K reporting a period newer than its data, makes it stale.
func StalenessOf(r Result, filings []Filing, relevance func(items []string) (string, string)) Staleness {
	screened := r.ScreenedAt.UTC().Format("2006-01-02")
	out := Staleness{Symbol: r.Symbol, ScreenedAt: r.ScreenedAt, FundamentalsAsOf: r.DataQuality.AsOf,
		SinceScreening: []FilingEvent{}, SinceData: []FilingEvent{}, NewerPeriodicRpts: []Filing{}}
	for _, ev := range EventsOf(filings, relevance) {
		if !ev.Material {
			continue
		}
		if ev.Date >= screened {
			out.SinceScreening = append(out.SinceScreening, ev)
		}
		if ev.Date > r.DataQuality.AsOf {
			out.SinceData = append(out.SinceData, ev)
		}
	}
	for _, f := range filings {
		if (f.Form == "10-Q" || f.Form == "10-K") && f.ReportDate > r.DataQuality.AsOf {
			out.NewerPeriodicRpts = append(out.NewerPeriodicRpts, f)
		}
	}
	out.Stale = len(out.SinceScreening) > 0 || len(out.NewerPeriodicRpts) > 0
	switch {
	case len(out.SinceScreening) > 0:
		out.Reason = fmt.Sprintf("%d material 8-K filing(s) since the screening on %s.", len(out.SinceScreening), screened)
	case len(out.NewerPeriodicRpts) > 0:
		f := out.NewerPeriodicRpts[0]
		out.Reason = fmt.Sprintf("A newer periodic report (%s for %s) than the data screened (as of %s).", f.Form, f.ReportDate, r.DataQuality.AsOf)
	default:
		out.Reason = "No material 8-K since the screening and no newer periodic report than its data."
	}
	return out
}

// IsAccession reports whether s is an SEC accession number (0000320193-24-000123: the filer agent's
// CIK, the year, a sequence).
func IsAccession(s string) bool {
	if len(s) != 20 || s[10] != '-' || s[13] != '-' {
		return false
	}
	for i, r := range s {
		if i != 10 && i != 13 && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// FilingTypeAll asks FilterFilings for every filing, insider forms included.
const FilingTypeAll = "all"

// FilingTypes are the forms a filings listing can be narrowed to (amendments included), besides
// FilingTypeAll. Without a form, a listing shows all of these: the periodic and current reports people
// read, not the insider Forms 3/4/5 and 144 that outnumber them (AAPL: 46 Form 4s and 17 Forms 144 among
// its latest 100 filings, next to one 10-K and three 10-Qs).
var FilingTypes = []string{"10-K", "10-Q", "8-K", "20-F", "40-F", "6-K"}

// reportForms are FilingTypes and their transition-report variants (10-KT, 10-QT), the default listing.
var reportForms = map[string]bool{"10-K": true, "10-Q": true, "8-K": true, "20-F": true, "40-F": true, "6-K": true,
	"10-KT": true, "10-QT": true}

// ParseFilingType reads a filing_type as REST and MCP take it: "" (the periodic and current reports),
// "all" (FilingTypeAll) or one of FilingTypes, in any case and with spaces around ("8-k" is 8-K). It
// returns the value FilterFilings takes, and false for anything else.
func ParseFilingType(raw string) (string, bool) {
	s := strings.ToUpper(strings.TrimSpace(raw))
	switch {
	case s == "":
		return "", true
	case s == strings.ToUpper(FilingTypeAll):
		return FilingTypeAll, true
	}
	for _, f := range FilingTypes {
		if s == f {
			return f, true
		}
	}
	return "", false
}

// FilingTypeMessage is the validation message for a filing_type ParseFilingType refuses.
var FilingTypeMessage = "must be one of " + strings.Join(FilingTypes, ", ") + " or all (without it: all of those forms, their amendments and 10-KT/10-QT)"

// FilterFilings pages the filings of a form, newest first as stored: form is one of FilingTypes
// (amendments included), FilingTypeAll, or "" for the periodic and current reports (FilingTypes, their
// amendments and transition reports). It returns the page (at most limit, after offset) and the number
// of filings that match.
func FilterFilings(all []Filing, form string, limit, offset int) ([]Filing, int) {
	out := []Filing{}
	total := 0
	for _, f := range all {
		base := strings.TrimSuffix(f.Form, "/A")
		var match bool
		switch form {
		case FilingTypeAll:
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
