package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/time/rate"

	"github.com/shariah-screen/shariah/config"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestSECClientsShareOneLimiter: the SEC ingester and the N-PORT ingester send through one HTTP
// client, so one limiter at SHARIAH_SEC_RPS bounds the process's requests to SEC.
func TestSECClientsShareOneLimiter(t *testing.T) {
	t.Parallel()
	ic := config.Ingest{SECUserAgent: "ops@example.com", SECRate: 7, SECSymbols: "indices", NPORTFilings: "https://a,https://b"}
	s, n := secSources(ic, nil, nil, nil, nil, nil)
	if s.Client.HTTP != n.HTTP || s.Client.HTTP.Limiter == nil || s.Client.HTTP.Limiter.Limit() != rate.Limit(7) {
		t.Fatalf("SEC %p, N-PORT %p, limiter %v", s.Client.HTTP, n.HTTP, s.Client.HTTP.Limiter)
	}
	if !s.Indices || s.Symbols != nil || s.Checkpoints == nil || len(n.Filings) != 2 {
		t.Fatalf("coverage: indices %v, symbols %v; N-PORT filings %v", s.Indices, s.Symbols, n.Filings)
	}
	ic.SECSymbols = "aapl, brk.b"
	if s, _ = secSources(ic, nil, nil, nil, nil, nil); s.Indices || strings.Join(s.Symbols, ",") != "AAPL,BRK.B" {
		t.Fatalf("list: indices %v, symbols %v", s.Indices, s.Symbols)
	}
}

// TestIngestCompanyFactsZipCommand runs `shariah ingest --companyfacts-zip` on a zip of the real AAPL,
// NVDA and SNOW companyfacts, with the ticker map of the shared mirror, and reports the process's
// peak resident memory.
func TestIngestCompanyFactsZipCommand(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = "../../../shared/data"
	}
	secDir, _ := filepath.Abs(filepath.Join(dir, "sec"))
	if _, err := os.Stat(secDir); err != nil {
		t.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR): %v", dir, err)
	}
	zpath := filepath.Join(t.TempDir(), "companyfacts.zip")
	f, err := os.Create(zpath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for cik, file := range map[string]string{"0000320193": "fairvalue/sec-filing-companyfacts-AAPL.json",
		"0001045810": "fairvalue/sec-filing-companyfacts-NVDA.json", "0001640147": "edgartools/snow_facts.json"} {
		b, err := os.ReadFile(filepath.Join(secDir, file))
		if err != nil {
			t.Fatal(err)
		}
		w, _ := zw.Create("CIK" + cik + ".json")
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if out, err := s.command([]string{"migrate"}).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	if out, err := s.command([]string{"ingest", "--companyfacts-zip"}).CombinedOutput(); err == nil {
		t.Fatalf("no argument accepted: %s", out)
	}
	cmd := s.command([]string{"ingest", "--companyfacts-zip", zpath}, "SHARIAH_SEC_WWW_URL=file://"+secDir, "SHARIAH_SEC_DATA_URL=file://"+secDir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ingest: %v %s", err, out)
	}
	var res struct {
		Report    struct{ Members, Stored, NoTicker int } `json:"report"`
		PerSecond float64                                 `json:"companies_per_second"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Report.Members != 3 || res.Report.Stored != 3 {
		t.Fatalf("report %s: %v", out, err)
	}
	rc, err := sredis.Open(s.redis.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if fs, err := sredis.NewRefStore(rc).Fundamentals(context.Background(), "NVDA"); err != nil || len(fs) < 8 {
		t.Fatalf("NVDA: %d periods, %v", len(fs), err)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("shariah ingest --companyfacts-zip: %d companies, %.1f companies/s, peak RSS %d MiB", res.Report.Stored, res.PerSecond, peak/1024)
}

func TestNewsFeedsOnSECHostsShareTheSECLimit(t *testing.T) {
	t.Parallel()
	for u, want := range map[string]bool{"https://www.sec.gov/news/pressreleases.rss": true, "https://sec.gov/x": true,
		"https://data.sec.gov/rss": true, "https://example.com/sec.gov": false, "https://notsec.gov/feed": false, "::bad": false} {
		if got := onSEC(u); got != want {
			t.Errorf("onSEC(%q) = %v", u, got)
		}
	}
}
