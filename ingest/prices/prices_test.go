package prices

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/market"
	sredis "github.com/shariah-screen/shariah/redis"
)

// A Stooq daily CSV as the service downloads it (recorded format).
const stooqCSV = "Date,Open,High,Low,Close,Volume\r\n2026-10-28,259.1,262.0,258.3,261.5,41000000\r\n2026-10-29,261.6,265.5,260.3,263.54,58898257\r\n2026-10-30,260.98,264.47,260.48,262.00,55943912\r\n"

func TestParseCSV(t *testing.T) {
	t.Parallel()
	bars, err := ParseCSV([]byte(stooqCSV))
	if err != nil || len(bars) != 3 || bars[2].Close.String() != "262.00" || bars[1].Volume != 58898257 {
		t.Fatalf("%v %v", bars, err)
	}
	for _, bad := range []string{"", "No data", "Date,Open,High,Low,Close\n2026-10-30,1,2,0.5,x\n", "Date,Open,High,Low,Close\nnot-a-date,1,2,1,1\n",
		"Date,Open,High,Low,Close,Volume\n2026-10-28,259.1,262.0,258.3,261.5,41000000\n2026-10-29,261.6,265"} {
		if _, err := ParseCSV([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if bars[1].Gaps != 0 {
		t.Errorf("a full row has gaps %v", bars[1].Gaps)
	}
	// no volume column, or an empty cell: the volume is unknown (served null), not 0
	nv, err := ParseCSV([]byte("Date,Open,High,Low,Close\n2026-10-29,1,2,0.5,1.5\n"))
	if err != nil || nv[0].Gaps != shariah.NoVolume || nv[0].Candle().Volume != nil || nv[0].Candle().High == nil {
		t.Errorf("no volume column: %+v %v", nv, err)
	}
	if ev, err := ParseCSV([]byte("Date,Open,High,Low,Close,Volume\n2026-10-29,1,2,0.5,1.5,\n2026-10-30,1,2,0.5,1.5,0\n")); err != nil ||
		ev[0].Gaps != shariah.NoVolume || ev[1].Gaps != 0 {
		t.Errorf("empty volume cell / a zero volume: %+v %v", ev, err)
	}
	if StooqSymbol("BRK-B") != "brk.b.us" || StooqSymbol("AZN.L") != "azn.uk" || StooqSymbol("7203.T") != "7203.jp" {
		t.Fatal("stooq symbols")
	}
}

func TestSourceUpdatesCandlesAndQuotesAndSkipsBadDocuments(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("s") {
		case "aapl.us":
			w.Write([]byte(stooqCSV))
		case "msft.us":
			w.Write([]byte("<html>rate limited</html>"))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	_, rc := redistest.Start(t)
	ref := sredis.NewRefStore(rc)
	ctx := context.Background()
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	old := shariah.Series{Symbol: "MSFT", Interval: "1d", Source: shariah.SourceHistory, Bars: []shariah.Bar{{Date: day("2026-10-01"), Open: 1, High: 1, Low: 1, Close: 1}}}
	if err := ref.PutSeries(ctx, old); err != nil {
		t.Fatal(err)
	}
	src := &Source{HTTP: &httpx.Client{UserAgent: "test", Backoff: time.Millisecond, MaxRetries: 1}, URLTemplate: srv.URL + "/q/d/l/?s={symbol}&i=d",
		Symbols: []string{"AAPL", "MSFT"}, Ref: ref}
	n, err := src.Run(ctx)
	if n != 1 || err == nil || !strings.Contains(err.Error(), "MSFT") {
		t.Fatalf("run: %d %v", n, err)
	}
	q, ok, _ := ref.Quote(ctx, "AAPL")
	if !ok || q.Price.String() != "262.00" || q.AsOf != "2026-10-30" || q.Source != shariah.SourceHistory {
		t.Fatalf("quote %+v", q)
	}
	m, _, _ := ref.Series(ctx, "AAPL", "1mo")
	if len(m.Bars) != 1 || m.Bars[0].Close.String() != "262.00" {
		t.Fatalf("monthly close %+v", m)
	}
	kept, _, _ := ref.Series(ctx, "MSFT", "1d")
	if len(kept.Bars) != 1 || kept.Bars[0].Close != 1 {
		t.Fatalf("a bad document touched stored candles: %+v", kept)
	}
}

// TestMostRequestedRefreshesTheSymbolsAskedFor counts quote requests as the edge does, flushes them to
// Redis and checks that the refresh fetches exactly the most requested symbols.
func TestMostRequestedRefreshesTheSymbolsAskedFor(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Query().Get("s"))
		mu.Unlock()
		w.Write([]byte(stooqCSV))
	}))
	defer srv.Close()
	_, rc := redistest.Start(t)
	ctx := context.Background()
	pop := sredis.NewPopularityStore(rc)
	now := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)
	var c market.RequestCounter
	for sym, n := range map[string]int{"AAPL": 5, "MSFT": 3, "KO": 1} {
		for range n {
			c.Add(sym)
		}
	}
	if err := c.Flush(ctx, pop, now.AddDate(0, 0, -1)); err != nil {
		t.Fatal(err)
	}
	c.Add("KO") // today: KO has 3, as MSFT: the tie goes by symbol
	c.Add("KO")
	c.Add("TSLA")
	if err := c.Flush(ctx, pop, now); err != nil {
		t.Fatal(err)
	}
	top, err := pop.MostRequested(ctx, 3, 7, now)
	if err != nil || strings.Join(top, ",") != "AAPL,KO,MSFT" {
		t.Fatalf("most requested: %v %v", top, err)
	}
	if old, _ := pop.MostRequested(ctx, 3, 7, now.AddDate(0, 0, 8)); len(old) != 0 {
		t.Fatalf("counts older than the window still count: %v", old)
	}
	ref := sredis.NewRefStore(rc)
	m := &MostRequested{Prices: &Source{HTTP: &httpx.Client{UserAgent: "test"}, URLTemplate: srv.URL + "/?s={symbol}", Ref: ref},
		Popularity: pop, N: 2, Now: func() time.Time { return now }}
	if n, err := m.Run(ctx); n != 2 || err != nil {
		t.Fatalf("refresh: %d %v", n, err)
	}
	sort.Strings(asked)
	if strings.Join(asked, ",") != "aapl.us,ko.us" {
		t.Fatalf("fetched %v", asked)
	}
	if _, ok, _ := ref.Quote(ctx, "KO"); !ok {
		t.Fatal("no quote for KO after the refresh")
	}
}
