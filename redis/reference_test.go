package redis

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

func day(s string) time.Time {
	t, _ := time.Parse("2006-01-02", s)
	return t
}

func TestBarsCodecRoundTripAndCompactness(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var bars []shariah.Bar
	d := day("2023-01-02")
	price := int64(150 * shariah.PriceScale)
	for range 750 {
		o := price + rng.Int64N(2_000_000) - 1_000_000
		c := price + rng.Int64N(4_000_000) - 2_000_000
		bars = append(bars, shariah.Bar{Date: d, Open: shariah.Price(o), High: shariah.Price(max(o, c) + 500_000),
			Low: shariah.Price(min(o, c) - 250_000), Close: shariah.Price(c), Volume: rng.Int64N(1e8)})
		price = c
		d = d.AddDate(0, 0, 1+rng.IntN(3))
	}
	enc := encodeBars(bars)
	got, err := decodeBars(enc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(bars) {
		t.Fatalf("%d bars back, want %d", len(got), len(bars))
	}
	for i := range bars {
		if !got[i].Date.Equal(bars[i].Date) || got[i].Open != bars[i].Open || got[i].High != bars[i].High ||
			got[i].Low != bars[i].Low || got[i].Close != bars[i].Close || got[i].Volume != bars[i].Volume {
			t.Fatalf("bar %d: %+v != %+v", i, got[i], bars[i])
		}
	}
	if per := len(enc) / len(bars); per > 24 {
		t.Fatalf("%d bytes per bar; the fixed layout would be 44", per)
	}
	if _, err := decodeBars(enc[:len(enc)-1]); err == nil {
		t.Fatal("truncated data decoded without error")
	}
	if _, err := decodeBars([]byte{9, 1, 2}); err == nil {
		t.Fatal("unknown format decoded")
	}
}

// TestBarsCodecGaps: what a bar lacks round-trips (format 2), a close-only bar is smaller than a full
// one, and candles written in format 1 (before the gaps byte) are still read, with volume 0 read as "no
// volume" and open = high = low = close as close-only (what the close-only readers wrote).
func TestBarsCodecGaps(t *testing.T) {
	t.Parallel()
	d := day("2025-12-01")
	bars := []shariah.Bar{
		{Date: d, Open: 100_000_000, High: 103_000_000, Low: 99_000_000, Close: 101_000_000, Volume: 5_000_000},
		shariah.CloseOnlyBar(d.AddDate(0, 0, 1), 102_500_000),
		{Date: d.AddDate(0, 0, 2), Open: 102_000_000, High: 104_000_000, Low: 101_000_000, Close: 103_000_000, Gaps: shariah.NoVolume},
		shariah.Bar{Date: d.AddDate(0, 0, 3), Open: 103_000_000, Close: 103_500_000, Volume: 7, Gaps: shariah.NoHighLow}.Normalized(),
		{Date: d.AddDate(0, 0, 6), Open: 103_500_000, High: 103_500_000, Low: 103_500_000, Close: 103_500_000, Volume: 0}, // a real zero
	}
	enc := encodeBars(bars)
	got, err := decodeBars(enc)
	if err != nil || len(got) != len(bars) {
		t.Fatalf("%v %v", got, err)
	}
	for i := range bars {
		if !got[i].Date.Equal(bars[i].Date) || got[i].Gaps != bars[i].Gaps || got[i].Close != bars[i].Close || got[i].Open != bars[i].Open || got[i].High != bars[i].High ||
			got[i].Low != bars[i].Low || got[i].Volume != bars[i].Volume {
			t.Errorf("bar %d: %+v != %+v", i, got[i], bars[i])
		}
	}
	if c := got[1].Candle(); c.Open != nil || c.High != nil || c.Low != nil || c.Volume != nil || c.Close != 102_500_000 {
		t.Errorf("close-only candle %+v", c)
	}
	if c := got[4].Candle(); c.Volume == nil || *c.Volume != 0 {
		t.Errorf("a known zero volume is served as 0: %+v", c)
	}
	full, closeOnly := len(encodeBars(bars[:1])), len(encodeBars([]shariah.Bar{bars[1]}))
	if closeOnly >= full-4 {
		t.Errorf("close-only bar %d bytes, full bar %d", closeOnly, full)
	}
	// format 1: day, open (from the previous close), high, low, close (from the open), volume
	v1 := []byte{barsFormatV1}
	v1 = binary.AppendVarint(v1, d.Unix()/86400)
	for _, x := range []int64{100_000_000, 3_000_000, -1_000_000, 1_000_000} {
		v1 = binary.AppendVarint(v1, x)
	}
	v1 = binary.AppendUvarint(v1, 5_000_000)
	v1 = binary.AppendUvarint(v1, 1)
	for _, x := range []int64{1_500_000, 0, 0, 0} {
		v1 = binary.AppendVarint(v1, x)
	}
	v1 = binary.AppendUvarint(v1, 0)
	old, err := decodeBars(v1)
	if err != nil || len(old) != 2 {
		t.Fatalf("format 1: %v %v", old, err)
	}
	if old[0].Gaps != 0 || old[0].High != 103_000_000 || old[0].Volume != 5_000_000 || old[1].Gaps != shariah.CloseOnly || old[1].Close != 102_500_000 {
		t.Fatalf("format 1 read as %+v", old)
	}
	if _, err := decodeBars([]byte{barsFormat, 2, 0x80}); err == nil {
		t.Fatal("unknown gap bits decoded")
	}
}

func TestMergeBarsNewerWins(t *testing.T) {
	t.Parallel()
	old := []shariah.Bar{{Date: day("2024-01-01"), Close: 1}, {Date: day("2024-01-03"), Close: 3}}
	newer := []shariah.Bar{{Date: day("2024-01-02"), Close: 20}, {Date: day("2024-01-03"), Close: 30}, {Date: day("2024-01-04"), Close: 40}}
	got := mergeBars(old, newer)
	want := []shariah.Price{1, 20, 30, 40}
	for i, b := range got {
		if b.Close != want[i] {
			t.Fatalf("merged %v", got)
		}
	}
}

func TestRefStoreMergesAndReadsBack(t *testing.T) {
	t.Parallel()
	srv := testsvc.MustRedis(t)
	c, err := Open(srv.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	st := NewRefStore(c)
	// Assets merge: later non-empty fields win, empty ones keep what is stored.
	if err := st.PutAssets(ctx, []shariah.Asset{{Symbol: "AAPL", Name: "Apple", Type: shariah.Equity, Sector: "Tech"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutAssets(ctx, []shariah.Asset{{Symbol: "AAPL", Name: "Apple Inc.", CIK: "0000320193"}}); err != nil {
		t.Fatal(err)
	}
	a, ok, _ := st.Asset(ctx, "AAPL")
	if !ok || a.Name != "Apple Inc." || a.Sector != "Tech" || a.CIK != "0000320193" || a.Type != shariah.Equity {
		t.Fatalf("merged asset %+v", a)
	}
	// Daily candles also build monthly ones; a second put merges.
	jan := shariah.Series{Symbol: "AAPL", Interval: "1d", Source: shariah.SourceHistory, Bars: []shariah.Bar{
		{Date: day("2024-01-30"), Open: 10, High: 12, Low: 9, Close: 11}, {Date: day("2024-01-31"), Open: 11, High: 13, Low: 10, Close: 12}}}
	feb := shariah.Series{Symbol: "AAPL", Interval: "1d", Source: shariah.SourceHistory, Bars: []shariah.Bar{
		{Date: day("2024-02-01"), Open: 12, High: 15, Low: 11, Close: 14}}}
	for _, s := range []shariah.Series{jan, feb, jan} {
		if err := st.PutSeries(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	d, _, _ := st.Series(ctx, "AAPL", "1d")
	m, _, _ := st.Series(ctx, "AAPL", "1mo")
	if len(d.Bars) != 3 || len(m.Bars) != 2 || m.Bars[0].Close != 12 || m.Bars[0].High != 13 || m.Bars[1].Close != 14 || d.Source != shariah.SourceHistory {
		t.Fatalf("daily %+v monthly %+v", d, m)
	}
	// Illustrative candles give way to real ones.
	demo := shariah.Series{Symbol: "MSFT", Interval: "1d", Source: shariah.SourceIllustrative, Bars: []shariah.Bar{
		{Date: day("2026-10-30"), Open: 5, High: 5, Low: 5, Close: 5}}}
	real := shariah.Series{Symbol: "MSFT", Interval: "1d", Source: shariah.SourceHistory, Bars: []shariah.Bar{
		{Date: day("2025-12-30"), Open: 4, High: 4, Low: 4, Close: 4}}}
	_ = st.PutSeries(ctx, demo)
	_ = st.PutSeries(ctx, real)
	ms, _, _ := st.Series(ctx, "MSFT", "1d")
	mm, _, _ := st.Series(ctx, "MSFT", "1mo")
	if len(ms.Bars) != 1 || ms.Source != shariah.SourceHistory || len(mm.Bars) != 1 || mm.Source != shariah.SourceHistory {
		t.Fatalf("real candles did not replace illustrative ones: %+v %+v", ms, mm)
	}
	_ = st.PutSeries(ctx, demo) // illustrative after real: not merged in
	if ms, _, _ = st.Series(ctx, "MSFT", "1d"); len(ms.Bars) != 1 || ms.Source != shariah.SourceHistory {
		t.Fatalf("illustrative after real: %+v", ms)
	}
	// Illustrative stands in only until filed data arrives.
	illus := shariah.Fundamentals{Symbol: "AAPL", PeriodEnd: "2025-12-31", Period: "FY",
		Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: {Source: shariah.SourceIllustrative}}}
	filed := shariah.Fundamentals{Symbol: "AAPL", PeriodEnd: "2024-06-29", Period: "Q3",
		Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: {Source: shariah.SourceFiling, Ref: "0000320193-24-000081"}}}
	if err := st.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"AAPL": {illus}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"AAPL": {filed}}); err != nil {
		t.Fatal(err)
	}
	fs, _ := st.Fundamentals(ctx, "AAPL")
	if len(fs) != 1 || fs[0].Period != "Q3" {
		t.Fatalf("illustrative period kept next to filed data: %+v", fs)
	}
	// and an illustrative period arriving after filed data is not added
	if err := st.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"AAPL": {illus}}); err != nil {
		t.Fatal(err)
	}
	if fs, _ = st.Fundamentals(ctx, "AAPL"); len(fs) != 1 || fs[0].Period != "Q3" {
		t.Fatalf("illustrative period added next to filed data: %+v", fs)
	}
	// Holdings: older ones do not replace newer.
	newH := []shariah.Holding{{ETF: "SPUS", Symbol: "NVDA", AsOf: "2026-07-17"}}
	oldH := []shariah.Holding{{ETF: "SPUS", Symbol: "AAPL", AsOf: "2025-01-01"}}
	_ = st.PutHoldings(ctx, "SPUS", newH)
	_ = st.PutHoldings(ctx, "SPUS", oldH)
	if hs, _ := st.Holdings(ctx, "SPUS"); len(hs) != 1 || hs[0].Symbol != "NVDA" {
		t.Fatalf("holdings %+v", hs)
	}
	// Illustrative index lists and holdings never replace real ones.
	_ = st.PutIndex(ctx, catalog.IndexInfo{Name: "SP500", Source: "sp500-datasets", Symbols: []string{"AAPL", "MSFT", "NVDA"}})
	_ = st.PutIndex(ctx, catalog.IndexInfo{Name: "SP500", Source: shariah.SourceIllustrative, Symbols: []string{"AAPL"}})
	if ixs, _ := st.Indices(ctx); len(ixs) != 1 || len(ixs[0].Symbols) != 3 {
		t.Fatalf("illustrative index replaced a real one: %+v", ixs)
	}
	_ = st.PutHoldings(ctx, "SPUS", []shariah.Holding{{ETF: "SPUS", Symbol: "MSFT", AsOf: "2026-10-30", Source: shariah.SourceIllustrative}})
	if hs, _ := st.Holdings(ctx, "SPUS"); len(hs) != 1 || hs[0].Symbol != "NVDA" {
		t.Fatalf("illustrative holdings replaced real ones: %+v", hs)
	}
	v1, _ := st.BumpVersion(ctx)
	v2, _ := st.Version(ctx)
	if v1 != v2 || v1 < 1 {
		t.Fatalf("version %d %d", v1, v2)
	}
}

// A cached store's version: a bump reaches it (its read answers for a millisecond, then the cache's
// value is read again, which the bump's invalidation has dropped), and an absent version is 0.
func TestCachedVersionFollowsBumps(t *testing.T) {
	t.Parallel()
	c := testClient(t)
	ctx := context.Background()
	writer, edge := NewRefStore(c), NewRefStore(c).Cached(time.Minute)
	if err := c.Do(ctx, c.B().Del().Key(refVersionKey()).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if v, err := edge.Version(ctx); v != 0 || err != nil {
		t.Fatalf("absent version: %d %v", v, err)
	}
	for want := int64(1); want <= 3; want++ {
		if v, err := writer.BumpVersion(ctx); v != want || err != nil {
			t.Fatalf("bump: %d %v", v, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			v, err := edge.Version(ctx)
			if err != nil || v > want {
				t.Fatalf("version %d %v, want %d", v, err, want)
			}
			if v == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("version %d 5 s after the bump to %d", v, want)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
}
