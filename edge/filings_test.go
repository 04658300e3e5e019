package edge_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/sec"
)

// ingestEXA runs the SEC ingester over the recorded EDGAR documents in ingest/sec/testdata (Example
// Corp, EXA: a 10-Q, a 10-K, an 8-K with items 2.02 and 9.01, a Form 4, and XBRL facts).
func ingestEXA(t *testing.T, e *env) {
	t.Helper()
	abs, err := filepath.Abs("../ingest/sec/testdata")
	if err != nil {
		t.Fatal(err)
	}
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "shariah-test ops@example.com"}, DataBase: "file://" + abs, WWWBase: "file://" + abs}
	src := &sec.Source{Client: c, Ref: e.ref, Filings: e.ingest, Trajectory: e.traj, News: e.news}
	if n, err := src.Run(context.Background()); err != nil || n != 1 {
		t.Fatalf("ingest: %d companies, %v", n, err)
	}
	now := time.Now().UTC()
	if err := e.ingest.PutHealth(context.Background(), filings.SourceHealth{Name: "sec", Status: "ok", LastRunAt: &now, LastSuccessAt: &now, Items: 1}); err != nil {
		t.Fatal(err)
	}
}

func TestFilingsEventsFactsAndProvenance(t *testing.T) {
	t.Parallel()
	e := setup(t, options{eventRelevance: func(items []string) (string, string) {
		for _, it := range items {
			if it == "2.02" {
				return "medium", "results of operations"
			}
		}
		return "low", ""
	}})
	ingestEXA(t, e)
	k := key(e.newKey(t, account.PlanPro))

	r := e.do(t, "GET", "/api/filings/EXA", nil, k)
	if r.StatusCode != 200 {
		t.Fatalf("filings: %d %s", r.StatusCode, r.body)
	}
	m := r.json(t)
	fl := m["filings"].([]any)
	// The periodic and current reports by default: the Form 4 among EXA's four filings is left out.
	if len(fl) != 3 || m["total"] != 3.0 || m["cik"] != "0001234567" {
		t.Fatalf("filings: %s", r.body)
	}
	for _, f := range fl {
		if f.(map[string]any)["form"] == "4" {
			t.Fatalf("insider form listed by default: %s", r.body)
		}
	}
	if m = e.do(t, "GET", "/api/filings/EXA?filing_type=all", nil, k).json(t); len(m["filings"].([]any)) != 4 || m["total"] != 4.0 {
		t.Fatalf("filing_type=all: %v", m)
	}
	// total counts every match, not the page.
	if m = e.do(t, "GET", "/api/filings/EXA?limit=1&offset=1", nil, k).json(t); len(m["filings"].([]any)) != 1 || m["total"] != 3.0 ||
		m["filings"].([]any)[0].(map[string]any)["form"] != "8-K" {
		t.Fatalf("paging: %v", m)
	}
	first := fl[0].(map[string]any)
	if first["form"] != "10-Q" || first["url"] == "" {
		t.Fatalf("newest filing first with its URL: %v", first)
	}
	r = e.do(t, "GET", "/api/filings/EXA?filing_type=8-k", nil, k)
	if fl = r.json(t)["filings"].([]any); len(fl) != 1 || fl[0].(map[string]any)["form"] != "8-K" {
		t.Fatalf("8-K filter: %s", r.body)
	}
	if r = e.do(t, "GET", "/api/filings/EXA?filing_type=S-1", nil, k); r.StatusCode != 422 {
		t.Fatalf("bad filing type: %d", r.StatusCode)
	}
	// A symbol the ingester does not cover answers an empty list with a note, not a 404.
	r = e.do(t, "GET", "/api/filings/MSFT", nil, k)
	if m = r.json(t); r.StatusCode != 200 || len(m["filings"].([]any)) != 0 || m["note"] == nil {
		t.Fatalf("uncovered symbol: %d %s", r.StatusCode, r.body)
	}
	if r = e.do(t, "GET", "/api/filings/NOPE123", nil, k); r.StatusCode != 404 {
		t.Fatalf("unknown symbol: %d", r.StatusCode)
	}

	r = e.do(t, "GET", "/api/filings/EXA/events", nil, k)
	evs := r.json(t)["events"].([]any)
	if len(evs) != 1 {
		t.Fatalf("events: %s", r.body)
	}
	ev := evs[0].(map[string]any)
	if ev["date"] != "2025-04-24" || ev["compliance_relevance"] != "medium" || len(ev["items"].([]any)) != 2 {
		t.Fatalf("event: %v", ev)
	}

	r = e.do(t, "GET", "/api/filings/EXA/facts?concept=Assets", nil, k)
	m = r.json(t)
	facts := m["facts"].([]any)
	if len(facts) == 0 {
		t.Fatalf("facts: %s", r.body)
	}
	for _, f := range facts {
		if f.(map[string]any)["concept"] != "us-gaap:Assets" {
			t.Fatalf("concept filter let through %v", f)
		}
	}
	if r = e.do(t, "GET", "/api/filings/EXA/facts?limit=0", nil, k); r.StatusCode != 422 {
		t.Fatalf("limit=0: %d", r.StatusCode)
	}

	r = e.do(t, "GET", "/api/filings/EXA/provenance", nil, k)
	in := r.json(t)["inputs"].(map[string]any)
	ta := in["total_assets"].(map[string]any)
	if ta["available"] != true || ta["source"] != "filing" || ta["url"] == nil || ta["form"] == "" || ta["accession"] != ta["source_ref"] || ta["cik"] != "0001234567" {
		t.Fatalf("provenance of total assets: %v", ta)
	}

	// The 8-K also shows up as a dated article in the news.
	r = e.do(t, "GET", "/api/news/EXA", nil, k)
	arts := r.json(t)["articles"].([]any)
	if len(arts) != 1 || arts[0].(map[string]any)["source"] != "sec-edgar-8k" {
		t.Fatalf("8-K news: %s", r.body)
	}
}

// mixedFilings is a filing list as EDGAR lists a large filer's (newest first): insider Forms 3, 4, 5 and
// 144 and a proxy among the periodic and current reports, a 10-K amendment and a foreign issuer's 20-F
// and 6-K.
func mixedFilings() []filings.Filing {
	forms := []string{"4", "144", "10-Q", "4", "8-K", "3", "10-K/A", "5", "144", "20-F", "6-K", "4", "10-K", "DEF 14A"}
	out := make([]filings.Filing, len(forms))
	day := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	for i, f := range forms {
		d := day.AddDate(0, 0, -7*i).Format("2006-01-02")
		out[i] = filings.Filing{Accession: fmt.Sprintf("0000320193-26-%06d", 100-i), Form: f, FilingDate: d, ReportDate: d,
			URL: "https://www.sec.gov/Archives/edgar/data/320193/" + d, Source: "test"}
	}
	return out
}

// TestFilingsListsReportsByDefault: over a stored list mixing insider forms and reports, the default is
// the reports (amendments and foreign issuers' forms included), all is everything, a form narrows to it
// and its amendments, total counts the matches over every page, and a bad filing_type is a 422.
func TestFilingsListsReportsByDefault(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	if err := e.ingest.PutFilings(context.Background(), "AAPL", mixedFilings()); err != nil {
		t.Fatal(err)
	}
	list := func(query string) (forms []string, total float64) {
		t.Helper()
		r := e.do(t, "GET", "/api/filings/AAPL"+query, nil, k)
		if r.StatusCode != 200 {
			t.Fatalf("%s: %d %s", query, r.StatusCode, r.body)
		}
		m := r.json(t)
		for _, f := range m["filings"].([]any) {
			forms = append(forms, f.(map[string]any)["form"].(string))
		}
		return forms, m["total"].(float64)
	}
	for _, c := range []struct {
		query string
		want  string
		total float64
	}{
		{"", "10-Q,8-K,10-K/A,20-F,6-K,10-K", 6},
		{"?filing_type=all", "4,144,10-Q,4,8-K,3,10-K/A,5,144,20-F,6-K,4,10-K,DEF 14A", 14},
		{"?filing_type=ALL&limit=3", "4,144,10-Q", 14},
		{"?filing_type=10-K", "10-K/A,10-K", 2},
		{"?filing_type=10-q", "10-Q", 1},
		{"?filing_type=20-F", "20-F", 1},
		{"?filing_type=6-K", "6-K", 1},
		{"?filing_type=40-F", "", 0},
		// total is the number of matches, not the page size.
		{"?limit=2", "10-Q,8-K", 6},
		{"?limit=2&offset=1", "8-K,10-K/A", 6},
		{"?limit=10&offset=4", "6-K,10-K", 6},
		{"?offset=6", "", 6},
		{"?filing_type=all&limit=5&offset=10", "6-K,4,10-K,DEF 14A", 14},
	} {
		forms, total := list(c.query)
		if strings.Join(forms, ",") != c.want || total != c.total {
			t.Errorf("%s: %v (total %v), want %s (total %v)", c.query, forms, total, c.want, c.total)
		}
	}
	for _, q := range []string{"filing_type=4", "filing_type=10-K%3BDROP", "filing_type=%3Cscript%3E", "offset=-1", "offset=100001", "limit=0", "limit=abc"} {
		if r := e.do(t, "GET", "/api/filings/AAPL?"+q, nil, k); r.StatusCode != 422 || r.errCode(t) != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", q, r.StatusCode, r.body)
		}
	}
}
