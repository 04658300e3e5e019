package sec_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/sec"
)

// realFacts are the shared companyfacts files with their filers' CIKs.
var realFacts = []struct{ sym, cik, file string }{
	{"AAPL", "0000320193", "sec/fairvalue/sec-filing-companyfacts-AAPL.json"},
	{"NVDA", "0001045810", "sec/fairvalue/sec-filing-companyfacts-NVDA.json"},
	{"SNOW", "0001640147", "sec/edgartools/snow_facts.json"},
}

// writeZip writes a zip of the named members.
func writeZip(t testing.TB, path string, members []zipMember) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f) // buffered inside
	for _, m := range members {
		w, err := zw.Create(m.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

type zipMember struct {
	name string
	body []byte
}

// TestIngestCompanyFactsZip builds a companyfacts.zip of the real AAPL, NVDA and SNOW files, a member
// that is not JSON (reported and skipped, the others stored), a filer without a ticker (skipped
// unread) and a stray file, and ingests it from a path and from a local HTTP server.
func TestIngestCompanyFactsZip(t *testing.T) {
	t.Parallel()
	dir := sharedDir(t)
	var members []zipMember
	for _, r := range realFacts {
		b, err := os.ReadFile(filepath.Join(dir, r.file))
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, zipMember{"CIK" + r.cik + ".json", b})
	}
	// Alphabet's CIK (AAPL's facts relabelled): its primary symbol is GOOGL, and an index lists GOOG.
	alpha := regexp.MustCompile(`"cik"\s*:\s*\d+`).ReplaceAll(members[0].body, []byte(`"cik": 1652044`))
	members = append(members, zipMember{"CIK0001652044.json", alpha},
		zipMember{"CIK0000789019.json", []byte("<html>not JSON</html>")}, // MSFT's CIK: has a ticker, so it is read
		zipMember{"CIK0000000042.json", []byte(`{"cik": 42, "entityName": "NO TICKER", "facts": {}}`)},
		zipMember{"README.txt", []byte("stray")})
	zpath := filepath.Join(t.TempDir(), "companyfacts.zip")
	writeZip(t, zpath, members)
	zb, err := os.ReadFile(zpath)
	if err != nil {
		t.Fatal(err)
	}
	tickers, err := os.ReadFile(filepath.Join(dir, "sec/edgartools/company_tickers.json"))
	if err != nil {
		t.Fatal(err)
	}
	ed := newEdgar()
	ed.set("/files/company_tickers.json", tickers)
	ed.set("/Archives/edgar/daily-index/xbrl/companyfacts.zip", zb)
	srv := httptest.NewServer(ed)
	defer srv.Close()

	st := startStores(t)
	ctx := context.Background()
	if err := st.ref.PutIndex(ctx, catalog.IndexInfo{Name: "TEST", Country: "United States", Source: "test", Symbols: []string{"NVDA", "GOOG"}}); err != nil {
		t.Fatal(err)
	}
	lim := countingLimiter()
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "shariah-test ops@example.com", Limiter: lim}, DataBase: srv.URL, WWWBase: srv.URL}
	s := st.source(c, nil)
	check := func(src string) {
		t.Helper()
		rep, err := s.IngestZip(ctx, src)
		if err == nil || !strings.Contains(err.Error(), "CIK0000789019.json") || strings.Contains(err.Error(), "CIK0000320193") {
			t.Fatalf("%s: error %v", src, err)
		}
		if rep.Members != 6 || rep.Stored != 4 || rep.Symbols != 5 || rep.NoTicker != 1 || rep.Ignored != 1 || len(rep.Failed) != 1 || rep.Bytes != int64(len(zb)) {
			t.Fatalf("%s: report %+v", src, rep)
		}
		t.Logf("%s: %+v", src, rep)
	}
	check(zpath)
	// The same mapping as the per-company path: what is stored is what Fundamentals makes of the file.
	for _, r := range realFacts {
		b, _ := os.ReadFile(filepath.Join(dir, r.file))
		cf, err := sec.ParseCompanyFacts(b)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := sec.Fundamentals(cf, r.sym)
		fs, _ := st.ref.Fundamentals(ctx, r.sym)
		facts, _ := st.ing.Facts(ctx, r.sym)
		traj, _ := st.traj.Trajectory(ctx, r.sym, 8)
		if len(fs) != len(want) || len(fs) < 8 || len(facts) == 0 || len(traj) != 8 {
			t.Fatalf("%s: %d periods (want %d), %d facts, %d quarters", r.sym, len(fs), len(want), len(facts), len(traj))
		}
	}
	for _, sym := range []string{"GOOG", "GOOGL"} {
		if fs, _ := st.ref.Fundamentals(ctx, sym); len(fs) < 8 || fs[0].Symbol != sym {
			t.Fatalf("%s (Alphabet's CIK): %d periods", sym, len(fs))
		}
	}
	if fs, _ := st.ref.Fundamentals(ctx, "MSFT"); len(fs) != 0 {
		t.Fatalf("the bad member stored MSFT: %d periods", len(fs))
	}
	// Over HTTP: the archive is downloaded (streamed to a temporary file) with the SEC User-Agent, and
	// the download takes a token of the same limiter as the ticker map.
	before := taken(lim)
	check(srv.URL + "/Archives/edgar/daily-index/xbrl/companyfacts.zip")
	if got := taken(lim) - before; got != 2 || ed.count("/Archives/edgar/daily-index/xbrl/companyfacts.zip") != 1 {
		t.Fatalf("%d tokens for the URL run (want 2: ticker map, archive)", got)
	}
	if len(ed.agents) != 1 || !ed.agents["shariah-test ops@example.com"] {
		t.Fatalf("user agents %v", ed.agents)
	}
	if _, err := s.IngestZip(ctx, srv.URL+"/missing.zip"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("missing archive: %v", err)
	}
	if _, err := s.IngestZip(ctx, filepath.Join(dir, "sec/edgartools/company_tickers.json")); err == nil {
		t.Fatal("a file that is not a zip was accepted")
	}
}

// BenchmarkIngestCompanyFactsZip ingests a zip (written one member at a time) of 201 members (the three real files again and again
// under invented CIKs, each with a ticker) into real Redis and ClickHouse and reports companies per
// second and the peak resident memory of the test process (VmHWM; it includes the test's own zip and
// buffers, so it bounds the ingester's from above).
func BenchmarkIngestCompanyFactsZip(b *testing.B) {
	dir := sharedDir(b)
	tmp := b.TempDir()
	cikRE := regexp.MustCompile(`"cik"\s*:\s*\d+`)
	tickers := map[string]any{}
	zpath := filepath.Join(tmp, "companyfacts.zip")
	f, err := os.Create(zpath)
	if err != nil {
		b.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for i := 0; i < 201; i++ { // one member at a time, so the benchmark's own memory stays small
		r := realFacts[i%len(realFacts)]
		raw, err := os.ReadFile(filepath.Join(dir, r.file))
		if err != nil {
			b.Fatal(err)
		}
		cik := 9_000_000 + i
		w, err := zw.Create(fmt.Sprintf("CIK%010d.json", cik))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Write(cikRE.ReplaceAll(raw, []byte(`"cik": `+strconv.Itoa(cik)))); err != nil {
			b.Fatal(err)
		}
		tickers[strconv.Itoa(i)] = map[string]any{"cik_str": cik, "ticker": fmt.Sprintf("B%03d", i), "title": "Bench " + r.sym}
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	tb, _ := json.Marshal(tickers)
	if err := os.WriteFile(filepath.Join(tmp, "company_tickers.json"), tb, 0o644); err != nil {
		b.Fatal(err)
	}
	st := startStores(b)
	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "x"}, DataBase: "file://" + tmp, WWWBase: "file://" + tmp}
	s := st.source(c, nil)
	b.ResetTimer()
	var stored int
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		rep, err := s.IngestZip(context.Background(), zpath)
		if err != nil || rep.Stored != 201 {
			b.Fatalf("%+v %v", rep, err)
		}
		stored += rep.Stored
		elapsed += rep.Elapsed
	}
	b.ReportMetric(float64(stored)/elapsed.Seconds(), "companies/s")
	if hwm := vmHWM(); hwm > 0 {
		b.ReportMetric(float64(hwm)/1024, "peak-RSS-MiB")
	}
}

// vmHWM is the process's peak resident set in KiB (Linux), 0 when unknown.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
