package sec_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/sec"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

type stores struct {
	ref  *sredis.RefStore
	ing  *sredis.IngestStore
	news *sredis.NewsStore
	traj analytics.Trajectory
}

// TestMain stops the ClickHouse the tests share (each test has a database of its own on it).
func TestMain(m *testing.M) { os.Exit(testsvc.Main(m)) }

// startStores gives the test a Redis of its own and a migrated ClickHouse database of its own.
func startStores(t testing.TB) stores {
	t.Helper()
	_, rc := redistest.Start(t)
	db, err := analytics.Open(testsvc.ClickHouseDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return stores{ref: sredis.NewRefStore(rc), ing: sredis.NewIngestStore(rc), news: sredis.NewNewsStore(rc), traj: analytics.Trajectory{DB: db}}
}

func (s stores) source(c *sec.Client, syms []string) *sec.Source {
	return &sec.Source{Client: c, Ref: s.ref, Filings: s.ing, Trajectory: s.traj, News: s.news, Symbols: syms}
}

// TestSourceOverHTTP serves recorded EDGAR documents from a local server that insists on the
// User-Agent, answers the first request with 429, and returns truncated companyfacts for one company.
func TestSourceOverHTTP(t *testing.T) {
	t.Parallel()
	st := startStores(t)
	read := func(name string) []byte { return fixture(t, name) }
	var calls, throttled atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := calls.Add(1); n == 1 {
			throttled.Add(1)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		if !strings.Contains(r.Header.Get("User-Agent"), "@") {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/files/company_tickers.json":
			w.Write(read("exa_tickers.json"))
		case "/submissions/CIK0001234567.json":
			w.Write(read("exa_submissions.json"))
		case "/api/xbrl/companyfacts/CIK0001234567.json":
			w.Write(read("exa_companyfacts.json"))
		case "/api/xbrl/companyfacts/CIK0001067983.json":
			w.Write(read("exa_companyfacts.json")[:300]) // truncated
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "shariah-test ops@example.com", Backoff: 10 * time.Millisecond}, DataBase: srv.URL, WWWBase: srv.URL}
	ctx := context.Background()
	if err := st.ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"BRK-B": {{Symbol: "BRK-B", PeriodEnd: "2024-12-31", Period: "FY",
		Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: {Value: shariah.NewNumber(d(1)), Source: shariah.SourceFiling, Ref: "kept"}}}}}); err != nil {
		t.Fatal(err)
	}
	// A stored GICS sub-industry stays beside the SIC code the submissions bring.
	if err := st.ref.PutAssets(ctx, []shariah.Asset{{Symbol: "EXA", Name: "Example Corp", Type: shariah.Equity, Sector: "Information Technology",
		Industry: "Application Software", IndustrySource: "S&P 500 constituents (GICS sub-industry)", Source: "sp500-constituents"}}); err != nil {
		t.Fatal(err)
	}
	n, err := st.source(c, []string{"EXA", "BRK-B"}).Run(ctx)
	if n != 1 || err == nil || !strings.Contains(err.Error(), "BRK-B") || throttled.Load() != 1 {
		t.Fatalf("run: %d companies, %v (throttled %d)", n, err, throttled.Load())
	}
	if a, _, _ := st.ref.Asset(ctx, "EXA"); a.SIC != "7372" || a.SICDescription != "Services-Prepackaged Software" ||
		a.SICSource != "SEC EDGAR submissions, CIK 0001234567" || a.Industry != "Application Software" ||
		a.IndustrySource != "S&P 500 constituents (GICS sub-industry)" {
		t.Errorf("EXA record after the submissions: %+v", a)
	}
	fs, _ := st.ref.Fundamentals(ctx, "EXA")
	if len(fs) == 0 || fs[len(fs)-1].Facts[shariah.TotalAssets].Ref == "" {
		t.Fatalf("EXA fundamentals: %+v", fs)
	}
	kept, _ := st.ref.Fundamentals(ctx, "BRK-B")
	if len(kept) != 1 || kept[0].Facts[shariah.TotalAssets].Ref != "kept" {
		t.Fatalf("a truncated document overwrote BRK-B: %+v", kept)
	}
	filings, _ := st.ing.Filings(ctx, "EXA")
	facts, _ := st.ing.Facts(ctx, "EXA")
	traj, _ := st.traj.Trajectory(ctx, "EXA", 8)
	if len(filings) == 0 || len(facts) == 0 || len(traj) == 0 || filings[0].URL == "" {
		t.Fatalf("EXA: %d filings, %d facts, %d trajectory points", len(filings), len(facts), len(traj))
	}
}

// TestSourceOnSharedSECFiles runs the ingester on the shared SEC files through file:// (the run the
// issue names): fundamentals, filings, 8-K events, facts and an 8-quarter trajectory for AAPL, NVDA, SNOW.
func TestSourceOnSharedSECFiles(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = "../../../shared/data"
	}
	abs, _ := filepath.Abs(filepath.Join(dir, "sec"))
	if _, err := os.Stat(abs); err != nil {
		t.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR): %v", dir, err)
	}
	st := startStores(t)
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "x"}, DataBase: "file://" + abs, WWWBase: "file://" + abs}
	ctx := context.Background()
	n, err := st.source(c, nil).Run(ctx)
	if err != nil || n != 3 {
		t.Fatalf("mirror run: %d %v", n, err)
	}
	for _, sym := range []string{"AAPL", "NVDA", "SNOW"} {
		fs, _ := st.ref.Fundamentals(ctx, sym)
		facts, _ := st.ing.Facts(ctx, sym)
		traj, _ := st.traj.Trajectory(ctx, sym, 8)
		if len(fs) < 8 || len(facts) == 0 || len(traj) != 8 {
			t.Fatalf("%s: %d periods, %d facts, %d quarters", sym, len(fs), len(facts), len(traj))
		}
		for _, p := range traj {
			if p.Accession == "" || p.DebtAssets == nil && sym != "SNOW" {
				t.Fatalf("%s quarter %+v", sym, p)
			}
		}
	}
	for _, sym := range []string{"AAPL", "NVDA"} { // submissions exist for these two (and TSLA)
		fls, _ := st.ing.Filings(ctx, sym)
		if len(fls) == 0 || len(filings.EventsOf(fls, nil)) == 0 {
			t.Fatalf("%s filings/events missing", sym)
		}
	}
	arts, total, err := st.news.News(ctx, filings.NewsQuery{Symbol: "AAPL", Limit: 5})
	if err != nil || total == 0 || arts[0].Source != "sec-edgar-8k" || arts[0].Published.IsZero() {
		t.Fatalf("8-K articles: %d %v %+v", total, err, arts)
	}
	// A second run changes nothing it should not: same trajectory, articles deduplicated.
	if _, err := st.source(c, nil).Run(ctx); err != nil {
		t.Fatal(err)
	}
	_, total2, _ := st.news.News(ctx, filings.NewsQuery{Symbol: "AAPL", Limit: 5})
	traj2, _ := st.traj.Trajectory(ctx, "AAPL", 8)
	if total2 != total || len(traj2) != 8 {
		t.Fatalf("rerun: %d articles (was %d), %d quarters", total2, total, len(traj2))
	}
}

func d(n int64) decimal.Decimal { return decimal.NewFromInt(n) }

// TestSourceLogsContradictedInputs: a companyfacts whose long-term debt is filed negative is stored
// with debt unmeasured (its reason kept) and its other inputs, and the ingester logs the problem.
func TestSourceLogsContradictedInputs(t *testing.T) {
	t.Parallel()
	st := startStores(t)
	read := func(name string) []byte { return fixture(t, name) }
	facts := bytes.Replace(read("exa_companyfacts.json"), []byte(`{"end": "2024-03-31", "val": 200,`), []byte(`{"end": "2024-03-31", "val": -200,`), 1)
	if bytes.Equal(facts, read("exa_companyfacts.json")) {
		t.Fatal("the fixture has no 2024-03-31 long-term debt to make negative")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/files/company_tickers.json":
			w.Write(read("exa_tickers.json"))
		case "/submissions/CIK0001234567.json":
			w.Write(read("exa_submissions.json"))
		case "/api/xbrl/companyfacts/CIK0001234567.json":
			w.Write(facts)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "shariah-test ops@example.com", Backoff: 10 * time.Millisecond}, DataBase: srv.URL, WWWBase: srv.URL}
	var logged bytes.Buffer
	src := st.source(c, []string{"EXA"})
	src.Log = slog.New(slog.NewTextHandler(&logged, nil))
	ctx := context.Background()
	if _, err := src.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), "EXA 2024-03-31 Q1 total_debt: contradicted by the filing: LongTermDebtNoncurrent at 2024-03-31 is negative (-200)") {
		t.Errorf("log %s", logged.String())
	}
	fs, _ := st.ref.Fundamentals(ctx, "EXA")
	for _, f := range fs {
		if f.PeriodEnd != "2024-03-31" {
			continue
		}
		if _, ok := f.Facts[shariah.TotalDebt]; ok || !strings.HasPrefix(f.Missing[shariah.TotalDebt], sec.ContradictedPrefix) {
			t.Errorf("stored debt %+v, reason %q", f.Facts[shariah.TotalDebt], f.Missing[shariah.TotalDebt])
		}
		if _, ok := f.Facts[shariah.TotalAssets]; !ok {
			t.Errorf("total assets dropped with the contradicted debt")
		}
		return
	}
	t.Fatalf("no 2024-03-31 period stored: %+v", fs)
}
