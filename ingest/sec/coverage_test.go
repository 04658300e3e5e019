package sec_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/sec"
)

// edgar is a local EDGAR: documents by path (absent: 404), request counts by path, and optionally
// ETags with 304 answers to If-None-Match, as data.sec.gov does.
type edgar struct {
	mu          sync.Mutex
	docs        map[string][]byte
	etags       bool
	requests    map[string]int
	total       int
	notModified int
	agents      map[string]bool
}

func newEdgar() *edgar {
	return &edgar{docs: map[string][]byte{}, requests: map[string]int{}, agents: map[string]bool{}}
}

func (e *edgar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.total++
	e.requests[r.URL.Path]++
	e.agents[r.Header.Get("User-Agent")] = true
	body, ok := e.docs[r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if e.etags {
		tag := fmt.Sprintf(`"%x"`, sha256.Sum256(body))
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			e.notModified++
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Write(body)
}

func (e *edgar) set(path string, body []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.docs[path] = body
}

func (e *edgar) count(path string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests[path]
}

func (e *edgar) counts() (total, notModified int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.total, e.notModified
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// countingLimiter never refills: every request takes one of its tokens for good, so the tokens
// taken count the requests that went through it, without timing.
func countingLimiter() *rate.Limiter { return rate.NewLimiter(0, 1_000_000) }

func taken(l *rate.Limiter) int { return 1_000_000 - int(l.Tokens()) }

const (
	cfAlphabet   = "/api/xbrl/companyfacts/CIK0001652044.json"
	subsAlphabet = "/submissions/CIK0001652044.json"
	cfEXA        = "/api/xbrl/companyfacts/CIK0001234567.json"
	subsEXA      = "/submissions/CIK0001234567.json"
	subsBRK      = "/submissions/CIK0001067983.json"
)

// TestIndexCoverageAndUnchangedCompanies covers the production default: the companies are the
// constituents of the stored indices that the ticker map knows, fetched once per CIK; a company whose
// submissions did not change costs one request (a 304 or an identical body) and no companyfacts; a
// company that failed, or whose submissions changed, is fetched in full on the next run.
func TestIndexCoverageAndUnchangedCompanies(t *testing.T) {
	t.Parallel()
	st := startStores(t)
	ctx := context.Background()
	for _, ix := range []catalog.IndexInfo{
		{Name: "SP500", Country: "United States", Source: "test", Symbols: []string{"EXA", "BRK.B", "GOOGL", "ZZZZ"}},
		{Name: "NASDAQ100", Country: "United States", Source: "test", Symbols: []string{"GOOG", "EXA"}},
		{Name: "DAX40", Country: "Germany", Source: "test", Symbols: []string{"SAP.DE", "EXA.DE"}},
	} {
		if err := st.ref.PutIndex(ctx, ix); err != nil {
			t.Fatal(err)
		}
	}
	ed := newEdgar()
	ed.etags = true
	alphaSubs := bytes.Replace(fixture(t, "exa_submissions.json"), []byte(`"cik": "1234567"`), []byte(`"cik": "1652044"`), 1)
	alphaFacts := bytes.Replace(fixture(t, "exa_companyfacts.json"), []byte(`"cik": 1234567`), []byte(`"cik": 1652044`), 1)
	ed.set("/files/company_tickers.json", fixture(t, "exa_tickers.json"))
	ed.set(subsEXA, fixture(t, "exa_submissions.json"))
	ed.set(cfEXA, fixture(t, "exa_companyfacts.json"))
	ed.set(subsAlphabet, alphaSubs)
	ed.set(cfAlphabet, alphaFacts[:400]) // truncated on the first run
	srv := httptest.NewServer(ed)
	defer srv.Close()
	lim := countingLimiter()
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "shariah-test ops@example.com", Limiter: lim, MaxRetries: 1, Backoff: time.Millisecond},
		DataBase: srv.URL, WWWBase: srv.URL}
	s := st.source(c, nil)
	s.Indices, s.Checkpoints = true, st.ing

	tm, err := c.TickerMap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	targets, unresolved, err := s.Coverage(ctx, tm)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(targets)
	if want := "[{0001067983 [BRK.B]} {0001234567 [EXA]} {0001652044 [GOOG GOOGL]}]"; got != want {
		t.Fatalf("coverage %s, want %s", got, want)
	}
	if !slices.Equal(unresolved, []string{"EXA.DE", "SAP.DE", "ZZZZ"}) {
		t.Fatalf("unresolved %v", unresolved)
	}
	if p, _ := tm.Primary("0001652044"); p != "GOOG" { // the fixture lists GOOG first
		t.Fatalf("primary %q", p)
	}

	run := func(want sec.Report) sec.Report {
		t.Helper()
		before, nm := ed.counts()
		defer func() {
			after, nm2 := ed.counts()
			t.Logf("run: %d requests (%d answered 304)", after-before, nm2-nm)
		}()
		rep, err := s.Ingest(ctx)
		rep.Unresolved = nil
		if fmt.Sprint(rep) != fmt.Sprint(want) {
			t.Fatalf("report %+v (%v), want %+v", rep, err, want)
		}
		if !strings.Contains(fmt.Sprint(err), "BRK.B") { // EDGAR has nothing for it: it fails every run
			t.Fatalf("error %v does not name BRK.B", err)
		}
		return rep
	}
	// Run 1: EXA stored; Alphabet's truncated companyfacts fail it (nothing stored, no checkpoint).
	run(sec.Report{Companies: 3, Symbols: 4, Updated: 1, Failed: 2})
	if fs, _ := st.ref.Fundamentals(ctx, "GOOG"); len(fs) != 0 {
		t.Fatalf("a failed company was stored: %d periods", len(fs))
	}
	if ed.count(cfEXA) != 1 || ed.count(cfAlphabet) != 1 {
		t.Fatalf("companyfacts requests: EXA %d, Alphabet %d", ed.count(cfEXA), ed.count(cfAlphabet))
	}
	// Run 2: EXA unchanged (304, no companyfacts); Alphabet has no checkpoint, so it is fetched again.
	ed.set(cfAlphabet, alphaFacts)
	run(sec.Report{Companies: 3, Symbols: 4, Updated: 1, Unchanged: 1, Failed: 1})
	if ed.count(cfEXA) != 1 || ed.count(cfAlphabet) != 2 {
		t.Fatalf("companyfacts requests: EXA %d, Alphabet %d", ed.count(cfEXA), ed.count(cfAlphabet))
	}
	for _, sym := range []string{"EXA", "GOOG", "GOOGL"} {
		fs, _ := st.ref.Fundamentals(ctx, sym)
		filings, _ := st.ing.Filings(ctx, sym)
		if len(fs) == 0 || len(filings) == 0 {
			t.Fatalf("%s: %d periods, %d filings", sym, len(fs), len(filings))
		}
	}
	// Run 3: nothing changed: submissions only, every one a 304.
	_, nm := ed.counts()
	run(sec.Report{Companies: 3, Symbols: 4, Unchanged: 2, Failed: 1})
	if _, nm3 := ed.counts(); nm3-nm != 2 || ed.count(cfEXA) != 1 || ed.count(cfAlphabet) != 2 {
		t.Fatalf("304s %d, companyfacts requests EXA %d, Alphabet %d", nm3-nm, ed.count(cfEXA), ed.count(cfAlphabet))
	}
	// Run 4: EXA filed something: its submissions changed, so its companyfacts are fetched again.
	ed.set(subsEXA, bytes.Replace(fixture(t, "exa_submissions.json"), []byte(`"Example Corp"`), []byte(`"Example Corporation"`), 1))
	run(sec.Report{Companies: 3, Symbols: 4, Updated: 1, Unchanged: 1, Failed: 1})
	if ed.count(cfEXA) != 2 || ed.count(cfAlphabet) != 2 {
		t.Fatalf("companyfacts requests: EXA %d, Alphabet %d", ed.count(cfEXA), ed.count(cfAlphabet))
	}
	if a, _, _ := st.ref.Asset(ctx, "EXA"); a.Name != "Example Corporation" {
		t.Fatalf("EXA asset %+v", a)
	}
	// Run 5: a server without validators: the body hashes as before, so still nothing is refetched.
	ed.mu.Lock()
	ed.etags = false
	ed.mu.Unlock()
	run(sec.Report{Companies: 3, Symbols: 4, Unchanged: 2, Failed: 1})
	if ed.count(cfEXA) != 2 || ed.count(cfAlphabet) != 2 {
		t.Fatalf("companyfacts requests: EXA %d, Alphabet %d", ed.count(cfEXA), ed.count(cfAlphabet))
	}
	// Every request, whatever the document, took a token of the one limiter.
	if total, _ := ed.counts(); taken(lim) != total {
		t.Fatalf("%d requests, %d limiter tokens taken", total, taken(lim))
	}
	if len(ed.agents) != 1 || !ed.agents["shariah-test ops@example.com"] {
		t.Fatalf("user agents %v", ed.agents)
	}
}

// TestCoverageOnRealIndices resolves the real S&P 500, Nasdaq-100 and Dow constituents (shared data)
// through SEC's real ticker map: the default production coverage, without fetching anything else.
func TestCoverageOnRealIndices(t *testing.T) {
	t.Parallel()
	dir := sharedDir(t)
	st := startStores(t)
	ctx := context.Background()
	for name, file := range map[string]string{"SP500": "constituents-sp500.csv", "NASDAQ100": "constituents-nasdaq100.csv",
		"DJIA": "constituents-dowjones.csv", "DAX40": "constituents-dax.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, "indices", "yfiua", file))
		if err != nil {
			t.Fatal(err)
		}
		ix := catalog.IndexInfo{Name: name, Country: "United States", Source: "yfiua/" + file}
		if name == "DAX40" {
			ix.Country = "Germany"
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			if sym, _, _ := strings.Cut(strings.TrimSpace(line), ","); sym != "" {
				ix.Symbols = append(ix.Symbols, sym) // as written (BRK.B): the US rule reads the dash form
			}
		}
		if err := st.ref.PutIndex(ctx, ix); err != nil {
			t.Fatal(err)
		}
	}
	secDir, _ := filepath.Abs(filepath.Join(dir, "sec"))
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "x"}, DataBase: "file://" + secDir, WWWBase: "file://" + secDir}
	s := st.source(c, nil)
	s.Indices = true
	tm, err := c.TickerMap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	targets, unresolved, err := s.Coverage(ctx, tm)
	if err != nil {
		t.Fatal(err)
	}
	syms := 0
	byCIK := map[string][]string{}
	for _, tg := range targets {
		syms += len(tg.Symbols)
		byCIK[tg.CIK] = tg.Symbols
	}
	t.Logf("coverage: %d companies (%d symbols) of %d tickers; %d unresolved: %v", len(targets), syms, tm.Len(), len(unresolved), unresolved)
	if len(targets) < 450 || !slices.Equal(byCIK["0001067983"], []string{"BRK.B"}) || !slices.Equal(byCIK["0001652044"], []string{"GOOG", "GOOGL"}) {
		t.Fatalf("coverage: %d companies, BRK %v, Alphabet %v", len(targets), byCIK["0001067983"], byCIK["0001652044"])
	}
	for _, u := range unresolved {
		if strings.HasSuffix(u, ".DE") {
			continue
		}
		t.Logf("US constituent without a ticker in the (2024) ticker map: %s", u)
	}
	if len(unresolved) < 40 { // the DAX's 40 are not US listings
		t.Fatalf("unresolved %v", unresolved)
	}
}

// sharedDir is the shared public data directory, or skips the test.
func sharedDir(t testing.TB) string {
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = "../../../shared/data"
	}
	if _, err := os.Stat(filepath.Join(dir, "sec")); err != nil {
		t.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR): %v", dir, err)
	}
	return dir
}
