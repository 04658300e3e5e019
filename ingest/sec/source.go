package sec

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// Source is the SEC EDGAR ingester: for each company it fetches submissions (filings, 8-K events, SIC
// and exchange) and companyfacts (fundamentals with provenance, the XBRL facts, dividends per share,
// the quarterly trajectory). A company whose fetch or parse fails is skipped and reported; nothing
// stored for it is overwritten.
type Source struct {
	Client     *Client
	Ref        shariah.RefStore
	Filings    shariah.FilingStore
	Trajectory shariah.TrajectoryStore
	News       shariah.NewsStore // optional: 8-K events become dated articles
	Symbols    []string          // companies to ingest; empty with a file:// mirror: every company in it
	// EventRelevance rates an 8-K by its items (news.RelevanceFor8K); nil rates every 8-K low.
	EventRelevance func(items []string) (level, reason string)
}

// Run ingests every target company and returns how many were updated.
func (s *Source) Run(ctx context.Context) (int, error) {
	tickers, err := s.Client.Tickers(ctx)
	if err != nil {
		return 0, fmt.Errorf("ticker map: %w", err)
	}
	bySym, byCIK := map[string]string{}, map[string]string{}
	for _, t := range tickers {
		if _, ok := bySym[t.Symbol]; !ok {
			bySym[t.Symbol] = t.CIK
		}
		if _, ok := byCIK[t.CIK]; !ok {
			byCIK[t.CIK] = t.Symbol
		}
	}
	type target struct{ sym, cik string }
	var targets []target
	for _, sym := range s.Symbols {
		if cik, ok := bySym[strings.ToUpper(sym)]; ok {
			targets = append(targets, target{strings.ToUpper(sym), cik})
		}
	}
	if len(s.Symbols) == 0 {
		ciks, err := s.Client.MirrorCIKs()
		if err != nil {
			return 0, err
		}
		for _, cik := range ciks {
			if sym, ok := byCIK[cik]; ok {
				targets = append(targets, target{sym, cik})
			}
		}
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].sym < targets[j].sym })
	if len(targets) == 0 {
		return 0, errors.New("no company to ingest (SHARIAH_SEC_SYMBOLS names none the ticker map knows)")
	}
	done := 0
	var errs []string
	for _, t := range targets {
		if ctx.Err() != nil {
			return done, ctx.Err()
		}
		if err := s.company(ctx, t.sym, t.cik); err != nil {
			errs = append(errs, t.sym+": "+err.Error())
			continue
		}
		done++
	}
	if done > 0 {
		if _, err := s.Ref.BumpVersion(ctx); err != nil {
			return done, err
		}
	}
	if len(errs) > 0 {
		return done, fmt.Errorf("%d of %d companies failed: %s", len(errs), len(targets), strings.Join(errs, "; "))
	}
	return done, nil
}

// company ingests one company. Everything is fetched and parsed before anything is written.
func (s *Source) company(ctx context.Context, sym, cik string) error {
	subs, hasSubs, err := s.Client.Submissions(ctx, cik)
	if err != nil {
		return fmt.Errorf("submissions: %w", err)
	}
	cf, hasFacts, err := s.Client.CompanyFacts(ctx, cik)
	if err != nil {
		return fmt.Errorf("companyfacts: %w", err)
	}
	var fs []shariah.Fundamentals
	if hasFacts {
		if fs, err = Fundamentals(cf, sym); err != nil && !errors.Is(err, ErrNoUSGAAP) {
			return fmt.Errorf("companyfacts: %w", err)
		}
	}
	if !hasSubs && !hasFacts {
		return errors.New("EDGAR has neither submissions nor companyfacts")
	}
	if hasSubs {
		a := subs.Asset()
		a.Symbol = sym
		if err := s.Ref.PutAssets(ctx, []shariah.Asset{a}); err != nil {
			return err
		}
		filings := s.filings(subs)
		if err := s.Filings.PutFilings(ctx, sym, filings); err != nil {
			return err
		}
		if s.News != nil {
			if _, err := s.News.PutArticles(ctx, s.eventArticles(sym, a.Name, filings)); err != nil {
				return err
			}
		}
	}
	if hasFacts {
		if len(fs) > 0 {
			if err := s.Ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{sym: fs}); err != nil {
				return err
			}
			if s.Trajectory != nil {
				if err := s.Trajectory.PutTrajectory(ctx, sym, shariah.TrajectoryOf(fs)); err != nil {
					return fmt.Errorf("trajectory: %w", err)
				}
			}
		}
		if err := s.Filings.PutFacts(ctx, sym, ScreeningFacts(cf)); err != nil {
			return err
		}
		if ds := DividendsPerShare(cf, sym); len(ds) > 0 {
			if err := s.Ref.PutDividends(ctx, sym, ds); err != nil {
				return err
			}
		}
	}
	_, err = shariah.RefreshQuotes(ctx, s.Ref, []string{sym}) // market cap follows the new shares outstanding
	return err
}

// filings turns submissions into filing records with their EDGAR URLs.
func (s *Source) filings(subs Submissions) []shariah.Filing {
	var out []shariah.Filing
	cik := strings.TrimLeft(string(subs.CIK), "0")
	for _, f := range subs.Filings() {
		doc := fmt.Sprintf("https://www.sec.gov/Archives/edgar/data/%s/%s/%s", cik, strings.ReplaceAll(f.Accession, "-", ""), f.PrimaryDocument)
		if f.PrimaryDocument == "" {
			doc = fmt.Sprintf("https://www.sec.gov/Archives/edgar/data/%s/%s/", cik, strings.ReplaceAll(f.Accession, "-", ""))
		}
		out = append(out, shariah.Filing{Accession: f.Accession, Form: f.Form, FilingDate: f.FilingDate, ReportDate: f.ReportDate,
			Items: f.Items, PrimaryDocument: f.PrimaryDocument, URL: doc, Source: "sec-edgar"})
	}
	return out
}

// eventArticles makes dated news articles of the 8-K filings of the two years before the company's
// latest filing (real dates and sources; the window follows the data, so a mirror yields its news).
func (s *Source) eventArticles(sym, name string, filings []shariah.Filing) []shariah.Article {
	latest := ""
	for _, f := range filings {
		if f.FilingDate > latest {
			latest = f.FilingDate
		}
	}
	t, err := time.Parse("2006-01-02", latest)
	if err != nil {
		return nil
	}
	cut := t.AddDate(-2, 0, 0).Format("2006-01-02")
	var out []shariah.Article
	for _, ev := range shariah.EventsOf(filings, s.EventRelevance) {
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
		out = append(out, shariah.Article{ID: "sec-" + ev.Accession, Title: title, URL: ev.URL, Published: published,
			Summary: "SEC filing " + ev.Accession + " (" + ev.Form + "), items " + itemCodes(ev.Items) + ".", Source: "sec-edgar-8k",
			Sources: []string{"sec-edgar-8k"}, Category: "filing", Symbols: []string{sym}, SentimentLabel: "neutral",
			ComplianceRelevance: ev.Relevance, RelevanceReason: ev.Reason})
	}
	return out
}

func itemCodes(items []shariah.EventItem) string {
	codes := make([]string, len(items))
	for i, it := range items {
		codes[i] = it.Code
	}
	return strings.Join(codes, ", ")
}
