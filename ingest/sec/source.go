package sec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/market"
)

// Store is what the SEC ingester reads and writes of the reference store: the stored indices (whose
// constituents it may cover), the companies' records, fundamentals and dividends, the quotes rebuilt
// with the new shares (market.RefreshQuotes) and the data version.
type Store interface {
	market.QuoteStore
	Indices(ctx context.Context) ([]catalog.IndexInfo, error) // with Symbols filled
	PutAssets(ctx context.Context, assets []shariah.Asset) error
	PutFundamentals(ctx context.Context, bySymbol map[string][]shariah.Fundamentals) error
	PutDividends(ctx context.Context, symbol string, ds []shariah.Dividend) error
	BumpVersion(ctx context.Context) (int64, error)
}

// Source is the SEC EDGAR ingester: for each company it fetches submissions (filings, 8-K events, SIC
// and exchange) and companyfacts (fundamentals with provenance, the XBRL facts, dividends per share,
// the quarterly trajectory). A company whose fetch or parse fails is skipped and reported; nothing
// stored for it is overwritten.
//
// With Checkpoints a company costs one request when nothing happened: submissions are fetched first,
// conditionally (the validators of the last complete ingest), and when EDGAR answers 304 or the body
// hashes as before, companyfacts (megabytes a company) and every write are skipped. A new filing
// changes submissions, so a company is refreshed exactly when it filed.
type Source struct {
	Client     *Client
	Ref        Store
	Filings    filings.Store
	Trajectory insights.TrajectoryStore
	News       filings.NewsStore // optional: 8-K events become dated articles
	// Symbols lists the companies to ingest. When it is empty, Indices picks them: true, every
	// constituent of the indices stored in Ref that the ticker map knows (SHARIAH_SEC_SYMBOLS=indices,
	// the production default: the US-listed part of whatever indices the data packs loaded); false,
	// every company of a file:// mirror (SHARIAH_SEC_SYMBOLS=*).
	Symbols []string
	Indices bool
	// Checkpoints keep each company's submissions hash and validators between runs (optional: without
	// them every company is fetched in full every run).
	Checkpoints Checkpoints
	// RefreshAfter re-ingests a company whose last complete ingest is older, changed or not, so a new
	// version of the companyfacts mapping reaches every company; 0 never.
	RefreshAfter time.Duration
	// EventRelevance rates an 8-K by its items (news.RelevanceFor8K); nil rates every 8-K low.
	EventRelevance func(items []string) (level, reason string)
	Log            *slog.Logger // nil: slog.Default()

	mu        sync.Mutex
	last      Report
	documents int // new filing documents read during the current run
}

// Checkpoints keep a string per item of a source between runs (sredis.IngestStore).
type Checkpoints interface {
	Checkpoint(ctx context.Context, source, item string) (string, bool, error)
	PutCheckpoint(ctx context.Context, source, item, value string) error
}

// checkpointSource names the SEC source's checkpoints (one per CIK).
const checkpointSource = "sec"

// checkpoint is what the last complete ingest of a company saw.
type checkpoint struct {
	SubmissionsSHA256 string `json:"submissions_sha256"`
	Validators
	LatestAccession string    `json:"latest_accession,omitempty"`
	Symbols         []string  `json:"symbols"` // stored under; a new symbol (an index added GOOG) forces a refresh
	At              time.Time `json:"at"`
}

// Report is what a run did.
type Report struct {
	Companies int `json:"companies"` // CIKs covered
	Symbols   int `json:"symbols"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"` // submissions unchanged since the last complete ingest: skipped
	Failed    int `json:"failed"`
	// Documents counts the primary documents of new 10-K and 10-Q filings read because companyfacts
	// did not hold them yet.
	Documents int `json:"filing_documents"`
	// Unresolved are requested or constituent symbols the ticker map does not know: listings outside
	// the US (SAP.DE), delisted or renamed companies. They are skipped.
	Unresolved []string `json:"unresolved,omitempty"`
}

// LastReport is the report of the latest run.
func (s *Source) LastReport() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *Source) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Run ingests every target company and returns how many were updated (the scheduler's items).
func (s *Source) Run(ctx context.Context) (int, error) {
	rep, err := s.Ingest(ctx)
	s.log().Info("sec ingest", "companies", rep.Companies, "symbols", rep.Symbols, "updated", rep.Updated,
		"unchanged", rep.Unchanged, "failed", rep.Failed, "filing_documents", rep.Documents, "unresolved", len(rep.Unresolved), "error", err)
	return rep.Updated, err
}

// Ingest ingests every target company. One company's failure is reported in the error and does not
// stop the others.
func (s *Source) Ingest(ctx context.Context) (Report, error) {
	tm, err := s.Client.TickerMap(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("ticker map: %w", err)
	}
	targets, unresolved, err := s.Coverage(ctx, tm)
	rep := Report{Companies: len(targets), Unresolved: unresolved}
	for _, t := range targets {
		rep.Symbols += len(t.Symbols)
	}
	s.mu.Lock()
	s.documents = 0
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.last = rep
		s.mu.Unlock()
	}()
	if err != nil {
		return rep, err
	}
	if len(targets) == 0 {
		return rep, errors.New("no company to ingest (the coverage names none the ticker map knows)")
	}
	var errs []string
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		updated, err := s.company(ctx, t)
		switch {
		case err != nil:
			rep.Failed++
			errs = append(errs, strings.Join(t.Symbols, "/")+": "+err.Error())
		case updated:
			rep.Updated++
		default:
			rep.Unchanged++
		}
	}
	s.mu.Lock()
	rep.Documents = s.documents
	s.mu.Unlock()
	if rep.Updated > 0 { // after a cancellation too: what was stored is served
		if _, err := s.Ref.BumpVersion(context.WithoutCancel(ctx)); err != nil {
			return rep, err
		}
	}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if len(errs) > 0 {
		return rep, fmt.Errorf("%d of %d companies failed (%d updated, %d unchanged): %s", len(errs), len(targets),
			rep.Updated, rep.Unchanged, joinCapped(errs, 20))
	}
	return rep, nil
}

// joinCapped joins the first n messages and counts the rest, so a bad night over the whole market
// leaves a readable health record.
func joinCapped(msgs []string, n int) string {
	if len(msgs) <= n {
		return strings.Join(msgs, "; ")
	}
	return strings.Join(msgs[:n], "; ") + fmt.Sprintf("; and %d more", len(msgs)-n)
}

// lastCheckpoint reads a company's checkpoint and says whether an unchanged submissions document may
// skip it: the same symbols as then, and not older than RefreshAfter.
func (s *Source) lastCheckpoint(ctx context.Context, t Target) (checkpoint, bool, error) {
	if s.Checkpoints == nil {
		return checkpoint{}, false, nil
	}
	raw, ok, err := s.Checkpoints.Checkpoint(ctx, checkpointSource, t.CIK)
	if err != nil || !ok {
		return checkpoint{}, false, err
	}
	var cp checkpoint
	if json.Unmarshal([]byte(raw), &cp) != nil || cp.SubmissionsSHA256 == "" || !slices.Equal(cp.Symbols, t.Symbols) {
		return checkpoint{}, false, nil // unreadable or different: ingest in full
	}
	if s.RefreshAfter > 0 && time.Since(cp.At) > s.RefreshAfter {
		return cp, false, nil
	}
	return cp, true, nil
}

// company ingests one company and reports whether anything was written (false: its submissions are
// unchanged since its last complete ingest). Everything is fetched and parsed before anything is
// written, and the checkpoint is written last, so a company that fails anywhere is retried in full on
// the next run.
func (s *Source) company(ctx context.Context, t Target) (bool, error) {
	cp, skippable, err := s.lastCheckpoint(ctx, t)
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	var since Validators
	if skippable {
		since = cp.Validators
	}
	subs, err := s.Client.SubmissionsSince(ctx, t.CIK, since)
	if err != nil {
		return false, fmt.Errorf("submissions: %w", err)
	}
	if skippable && (subs.NotModified || subs.Found && subs.SHA256 == cp.SubmissionsSHA256) {
		return false, nil
	}
	cf, hasFacts, err := s.Client.CompanyFacts(ctx, t.CIK)
	if err != nil {
		return false, fmt.Errorf("companyfacts: %w", err)
	}
	if !subs.Found && !hasFacts {
		return false, errors.New("EDGAR has neither submissions nor companyfacts")
	}
	// The live path: a 10-K or 10-Q newer than anything companyfacts holds is read from its primary
	// document, so the company is screened on it this cycle rather than when the quarterly series
	// catches up. A document that fails is reported (health names the file and the fact) and left
	// out: the rest of the company still updates from companyfacts, and the missing checkpoint makes
	// the next cycle try again.
	var doc *CompanyFacts
	var docErr error
	if subs.Found {
		if doc, docErr = s.newFilingDocument(ctx, t, subs.Submissions, cf, hasFacts); docErr != nil {
			doc = nil
		}
	}
	var updates []factsUpdate
	if hasFacts || doc != nil {
		for _, sym := range t.Symbols {
			u, err := parseFacts(cf, hasFacts, doc, sym)
			if err != nil {
				return false, err
			}
			updates = append(updates, u)
		}
	}
	if subs.Found {
		if err := s.putSubmissions(ctx, t.Symbols, subs.Submissions); err != nil {
			return false, err
		}
	}
	if len(updates) > 0 {
		err = s.storeFacts(ctx, updates, nil)
	} else {
		_, err = market.RefreshQuotes(ctx, s.Ref, t.Symbols)
	}
	if err != nil {
		return false, err
	}
	if docErr != nil {
		return true, docErr
	}
	if doc != nil {
		s.mu.Lock()
		s.documents++
		s.mu.Unlock()
	}
	return true, s.putCheckpoint(ctx, t, subs)
}

// periodicForms are the reports whose primary document carries the financial statements in inline
// XBRL (amendments included).
var periodicForms = map[string]bool{"10-K": true, "10-Q": true, "10-K/A": true, "10-Q/A": true}

// newFilingDocument reads the newest 10-K or 10-Q of the submissions when companyfacts does not hold it
// yet (nil when it does, or when there is none). Its facts come back in companyfacts form for the one
// mapping. A document with only its cover page (statements in an exhibit) adds nothing.
func (s *Source) newFilingDocument(ctx context.Context, t Target, subs Submissions, cf CompanyFacts, hasFacts bool) (*CompanyFacts, error) {
	var newest *Filing
	for _, f := range subs.Filings() { // newest first
		if periodicForms[f.Form] {
			newest = &f
			break
		}
	}
	if newest == nil || (hasFacts && hasAccession(cf, newest.Accession)) {
		return nil, nil
	}
	b, ok, err := s.Client.FilingDocument(ctx, t.CIK, *newest, t.Symbols)
	name := newest.PrimaryDocument
	if err != nil {
		return nil, fmt.Errorf("%s %s primary document %s: %w", newest.Form, newest.Accession, name, err)
	}
	if !ok {
		s.log().Info("sec filing document not found", "cik", t.CIK, "accession", newest.Accession, "document", name)
		return nil, nil
	}
	d, err := ParseInlineXBRL(bytes.NewReader(b), name)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", newest.Form, newest.Accession, err)
	}
	if d.Info.CIK != "" && d.Info.CIK != t.CIK {
		return nil, fmt.Errorf("%s %s primary document %s: cover page CIK %s, filer %s", newest.Form, newest.Accession, name, d.Info.CIK, t.CIK)
	}
	if !d.HasStatements() {
		s.log().Info("sec filing document has no statements", "cik", t.CIK, "accession", newest.Accession, "document", name)
		return nil, nil
	}
	out := d.CompanyFacts(FilingRef{Accession: newest.Accession, Form: newest.Form, Filed: newest.FilingDate, Document: name})
	out.CIK = CIK(t.CIK)
	return &out, nil
}

// hasAccession reports whether companyfacts holds any fact of the filing.
func hasAccession(cf CompanyFacts, accn string) bool {
	for _, concepts := range cf.Facts {
		for _, c := range concepts {
			for _, facts := range c.Units {
				for _, f := range facts {
					if f.Accn == accn {
						return true
					}
				}
			}
		}
	}
	return false
}

// putCheckpoint records a company's complete ingest.
func (s *Source) putCheckpoint(ctx context.Context, t Target, subs SubmissionsDoc) error {
	if s.Checkpoints == nil {
		return nil
	}
	cp := checkpoint{SubmissionsSHA256: subs.SHA256, Validators: subs.Validators, Symbols: t.Symbols, At: time.Now().UTC()}
	if fs := subs.Submissions.Filings(); len(fs) > 0 {
		cp.LatestAccession = fs[0].Accession
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	if err := s.Checkpoints.PutCheckpoint(ctx, checkpointSource, t.CIK, string(b)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// putSubmissions stores what submissions say: the asset record, the filings and the 8-K events.
func (s *Source) putSubmissions(ctx context.Context, syms []string, subs Submissions) error {
	filings := s.filings(subs)
	a := subs.Asset()
	for _, sym := range syms {
		a.Symbol = sym
		put := a
		// EDGAR's SIC description fills an empty industry, but does not replace a stored industry of
		// another scheme (a GICS sub-industry): the SIC code is stored beside it either way.
		if old, ok, err := s.Ref.Asset(ctx, sym); err != nil {
			return err
		} else if ok && old.Industry != "" && !strings.EqualFold(old.Industry, a.Industry) {
			put.Industry, put.IndustrySource = "", ""
		}
		if err := s.Ref.PutAssets(ctx, []shariah.Asset{put}); err != nil {
			return err
		}
		if err := s.Filings.PutFilings(ctx, sym, filings); err != nil {
			return err
		}
	}
	if s.News != nil {
		if _, err := s.News.PutArticles(ctx, s.eventArticles(syms, a.Name, filings)); err != nil {
			return err
		}
	}
	return nil
}

// factsUpdate is the companyfacts half of a company's update for one symbol, parsed before anything
// is written.
type factsUpdate struct {
	sym          string
	fundamentals []shariah.Fundamentals
	history      []shariah.Fundamentals // companyfacts' periods: the trajectory
	facts        []filings.XBRLFact
	dividends    []shariah.Dividend
}

// parseFacts maps companyfacts, and the facts of a new filing's document when there is one (merged
// into one reading: the same mapping sees both), for one symbol. A filer without us-gaap facts (an
// IFRS 20-F filer) has no fundamentals but keeps its facts. The trajectory stays companyfacts' alone:
// it is the quarterly history, which a single new document does not restate.
func parseFacts(cf CompanyFacts, hasFacts bool, doc *CompanyFacts, sym string) (factsUpdate, error) {
	all := cf
	if doc != nil {
		readings := []CompanyFacts{*doc}
		if hasFacts {
			readings = []CompanyFacts{cf, *doc}
		}
		var err error
		if all, err = MergeFacts(readings...); err != nil {
			return factsUpdate{}, err
		}
	}
	fs, err := Fundamentals(all, sym)
	if err != nil && !errors.Is(err, ErrNoUSGAAP) {
		return factsUpdate{}, fmt.Errorf("companyfacts: %w", err)
	}
	u := factsUpdate{sym: sym, fundamentals: fs, facts: ScreeningFacts(all), dividends: DividendsPerShare(all, sym), history: fs}
	if doc != nil && hasFacts {
		if u.history, err = Fundamentals(cf, sym); err != nil && !errors.Is(err, ErrNoUSGAAP) {
			return factsUpdate{}, fmt.Errorf("companyfacts: %w", err)
		}
	}
	return u, nil
}

// storeFacts stores the companyfacts half of an update: fundamentals, the quarterly trajectory, the
// XBRL facts and dividends per share, then the quotes (market cap follows the new shares
// outstanding). The per-company path and the companyfacts.zip path both store through it; the latter
// passes a batch, which collects the trajectory for one insert of many companies (TrajectoryBatcher).
func (s *Source) storeFacts(ctx context.Context, updates []factsUpdate, batch map[string][]insights.TrajectoryPoint) error {
	for _, u := range updates {
		for _, c := range Contradictions(u.fundamentals) {
			s.log().Warn("sec filing contradicts itself: input left unmeasured", "problem", c)
		}
	}
	syms := make([]string, 0, len(updates))
	for _, u := range updates {
		syms = append(syms, u.sym)
		if len(u.fundamentals) > 0 {
			if err := s.Ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{u.sym: u.fundamentals}); err != nil {
				return err
			}
			switch {
			case batch != nil:
				batch[u.sym] = insights.TrajectoryOf(u.history)
			case s.Trajectory != nil:
				if err := s.Trajectory.PutTrajectory(ctx, u.sym, insights.TrajectoryOf(u.history)); err != nil {
					return fmt.Errorf("trajectory: %w", err)
				}
			}
		}
		if err := s.Filings.PutFacts(ctx, u.sym, u.facts); err != nil {
			return err
		}
		if len(u.dividends) > 0 {
			if err := s.Ref.PutDividends(ctx, u.sym, u.dividends); err != nil {
				return err
			}
		}
	}
	_, err := market.RefreshQuotes(ctx, s.Ref, syms)
	return err
}

// filings turns submissions into filing records with their EDGAR URLs.
func (s *Source) filings(subs Submissions) []filings.Filing {
	var out []filings.Filing
	cik := strings.TrimLeft(string(subs.CIK), "0")
	for _, f := range subs.Filings() {
		doc := fmt.Sprintf("https://www.sec.gov/Archives/edgar/data/%s/%s/%s", cik, strings.ReplaceAll(f.Accession, "-", ""), f.PrimaryDocument)
		if f.PrimaryDocument == "" {
			doc = fmt.Sprintf("https://www.sec.gov/Archives/edgar/data/%s/%s/", cik, strings.ReplaceAll(f.Accession, "-", ""))
		}
		out = append(out, filings.Filing{Accession: f.Accession, Form: f.Form, FilingDate: f.FilingDate, ReportDate: f.ReportDate,
			Items: f.Items, PrimaryDocument: f.PrimaryDocument, URL: doc, Source: "sec-edgar"})
	}
	return out
}

// eventArticles makes dated news articles of the 8-K filings of the two years before the company's
// latest filing (real dates and sources; the window follows the data, so a mirror yields its news),
// each tagged with every symbol of the company.
func (s *Source) eventArticles(syms []string, name string, fls []filings.Filing) []filings.Article {
	latest := ""
	for _, f := range fls {
		if f.FilingDate > latest {
			latest = f.FilingDate
		}
	}
	t, err := time.Parse("2006-01-02", latest)
	if err != nil {
		return nil
	}
	cut := t.AddDate(-2, 0, 0).Format("2006-01-02")
	var out []filings.Article
	for _, ev := range filings.EventsOf(fls, s.EventRelevance) {
		if ev.Date < cut {
			continue
		}
		var descs []string
		for _, it := range ev.Items {
			if it.Description != "" && it.Code != "9.01" {
				descs = append(descs, it.Description)
			}
		}
		title := name + " files " + ev.Form
		if len(descs) > 0 {
			title += ": " + strings.Join(descs, "; ")
		}
		published, _ := time.Parse("2006-01-02", ev.Date)
		out = append(out, filings.Article{ID: "sec-" + ev.Accession, Title: title, URL: ev.URL, Published: published,
			Summary: "SEC filing " + ev.Accession + " (" + ev.Form + "), items " + itemCodes(ev.Items) + ".", Source: "sec-edgar-8k",
			Sources: []string{"sec-edgar-8k"}, Category: "filing", Symbols: slices.Clone(syms), SentimentLabel: "neutral",
			ComplianceRelevance: ev.Relevance, RelevanceReason: ev.Reason})
	}
	return out
}

func itemCodes(items []filings.EventItem) string {
	codes := make([]string, len(items))
	for i, it := range items {
		codes[i] = it.Code
	}
	return strings.Join(codes, ", ")
}
