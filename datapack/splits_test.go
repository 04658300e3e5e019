package datapack

import (
	"context"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// sharesPeriod is a period of sym with only a share count, dated at (the cover page's date).
func sharesPeriod(sym, end string, shares int64, at string) shariah.Fundamentals {
	return shariah.Fundamentals{Symbol: sym, PeriodEnd: end, Period: "Q1", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
		shariah.SharesOutstanding: {Value: shariah.NewNumber(decimal.NewFromInt(shares)), Source: shariah.SourceFiling, Ref: "test", AsOf: at}}}
}

func sharesOf(t *testing.T, p *Pack, sym, end string) (shariah.Fact, string, bool) {
	t.Helper()
	for _, f := range p.Fundamentals {
		if f.Symbol == sym && f.PeriodEnd == end {
			fact, ok := f.Facts[shariah.SharesOutstanding]
			return fact, f.Missing[shariah.SharesOutstanding], ok
		}
	}
	t.Fatalf("no period %s of %s", end, sym)
	return shariah.Fact{}, "", false
}

func mustPx(s string) shariah.Price {
	px, err := shariah.ParsePrice(s)
	if err != nil {
		panic(err)
	}
	return px
}

func dailySeries(sym string, start time.Time, closes ...string) []shariah.Series {
	var bars []shariah.Bar
	d := start
	for _, c := range closes {
		px := mustPx(c)
		bars = append(bars, shariah.Bar{Date: d, Open: px, High: px, Low: px, Close: px})
		d = d.AddDate(0, 0, 1)
	}
	return []shariah.Series{{Symbol: sym, Interval: "1d", Source: shariah.SourceHistory, Bars: bars},
		{Symbol: sym, Interval: "1mo", Source: shariah.SourceHistory, Bars: shariah.MonthlyFromDaily(bars)}}
}

// A split from a split history with a window: a count dated before the window is multiplied, one after
// it is left, one inside it is held back (suspect), with the reason in Missing and in the problems.
func TestAlignSharesKnownSplit(t *testing.T) {
	p := &Pack{Fundamentals: []shariah.Fundamentals{
		sharesPeriod("ABC", "2024-12-31", 100_000, "2025-01-10"),
		sharesPeriod("ABC", "2025-03-31", 100_000, "2025-05-10"),
		sharesPeriod("ABC", "2025-06-30", 1_000_000, "2025-08-10")},
		Splits: []market.Split{{Symbol: "ABC", After: "2025-03-01", On: "2025-06-01", Ratio: decimal.NewFromInt(10), Source: "test history"}}}
	AlignShares(p, map[string]bool{"ABC": true}, nil, SP500SnapshotDate)
	before, _, ok := sharesOf(t, p, "ABC", "2024-12-31")
	if !ok || before.Value.Decimal.IntPart() != 1_000_000 || !strings.Contains(before.Note, "10-for-1") || !strings.Contains(before.Note, "test history") ||
		!strings.Contains(before.Note, "cover count 100000 (as of 2025-01-10)") {
		t.Errorf("before the split: %+v", before)
	}
	if _, why, ok := sharesOf(t, p, "ABC", "2025-03-31"); ok || !strings.HasPrefix(why, market.SplitUnplaced) || !strings.Contains(why, "may be before or after it") {
		t.Errorf("inside the window: held back? %v %q", ok, why)
	}
	if after, _, _ := sharesOf(t, p, "ABC", "2025-06-30"); after.Value.Decimal.IntPart() != 1_000_000 || after.Note != "" {
		t.Errorf("after the split: %+v", after)
	}
	if len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Msg, "ABC 2025-03-31") {
		t.Errorf("problems: %v", p.Problems)
	}
}

// The last resort: a day-over-day close ratio matching a split factor in a series not adjusted for the
// split. The closes before it are divided by the ratio, the split is named as inferred, and the counts
// before it are multiplied. A drop that reverts the next day is a bad print, not a split.
func TestAlignSharesCloseJump(t *testing.T) {
	start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	p := &Pack{Fundamentals: []shariah.Fundamentals{
		sharesPeriod("JMP", "2024-12-31", 50_000, "2025-01-31"),
		sharesPeriod("JMP", "2025-03-31", 500_000, "2025-04-30"),
		sharesPeriod("BAD", "2024-12-31", 70_000, "2025-01-31")}}
	p.Series = append(p.Series, dailySeries("JMP", start, "100", "102", "10.1", "10.3")...)
	p.Series = append(p.Series, dailySeries("BAD", start, "100", "10", "100", "101")...)
	AlignShares(p, nil, nil, SP500SnapshotDate)
	if len(p.Splits) != 1 || p.Splits[0].Symbol != "JMP" || p.Splits[0].Name() != "10-for-1" ||
		!strings.Contains(p.Splits[0].Source, "inferred from a close ratio jump") || p.Splits[0].On != "2025-03-05" {
		t.Fatalf("splits: %+v", p.Splits)
	}
	d := p.Series[0].Bars
	if d[0].Close != mustPx("10") || d[1].Close != mustPx("10.2") || d[2].Close != mustPx("10.1") {
		t.Errorf("daily closes not on one basis: %v %v %v", d[0].Close, d[1].Close, d[2].Close)
	}
	if m := p.Series[1].Bars; len(m) != 1 || m[0].Open != mustPx("10") || m[0].High != mustPx("10.3") {
		t.Errorf("monthly bar not rebuilt: %+v", m)
	}
	if f, _, _ := sharesOf(t, p, "JMP", "2024-12-31"); f.Value.Decimal.IntPart() != 500_000 || !strings.Contains(f.Note, "close ratio jump") {
		t.Errorf("count before the jump: %+v", f)
	}
	if f, _, _ := sharesOf(t, p, "BAD", "2024-12-31"); f.Value.Decimal.IntPart() != 70_000 || p.Series[2].Bars[0].Close != mustPx("100") {
		t.Errorf("a reverting print read as a split: %+v", f)
	}
}

// NFLX's case on figures written for the test: a cover count from before a 10-for-1 split, closes
// adjusted for it, no split history; a market snapshot (price on the closes' basis) implies ten times
// the count. With a split history covering the company, the snapshot is not read.
func TestAlignSharesSnapshot(t *testing.T) {
	mk := func() *Pack {
		p := &Pack{Fundamentals: []shariah.Fundamentals{
			sharesPeriod("NFX", "2024-12-31", 427_757_100, "2025-01-17"),
			sharesPeriod("NFX", "2025-06-30", 424_926_346, "2025-07-10")}}
		p.Series = dailySeries("NFX", time.Date(2025, 12, 29, 0, 0, 0, 0, time.UTC), "93.50", "93.78")
		return p
	}
	snaps := map[string]MarketSnapshot{"NFX": {Price: mustPx("79.59"), MarketCap: shariah.NewNumber(decimal.NewFromInt(331_407_949_824))}}
	p := mk()
	AlignShares(p, nil, snaps, SP500SnapshotDate)
	f, _, _ := sharesOf(t, p, "NFX", "2025-06-30")
	if f.Value.Decimal.IntPart() != 4_249_263_460 || !strings.Contains(f.Note, "inferred from the market snapshot") || !strings.Contains(f.Note, "10-for-1") {
		t.Errorf("NFX: %+v", f)
	}
	if len(p.Splits) != 1 || p.Splits[0].After != "2025-07-10" || p.Splits[0].On != SP500SnapshotDate {
		t.Errorf("split window: %+v", p.Splits)
	}
	// market cap at the last close: about 398 billion, not 40
	mc := f.Value.Decimal.Mul(decimal.RequireFromString("93.78"))
	if mc.LessThan(decimal.NewFromInt(350e9)) || mc.GreaterThan(decimal.NewFromInt(450e9)) {
		t.Errorf("market cap %s", mc)
	}
	p = mk()
	AlignShares(p, map[string]bool{"NFX": true}, snaps, SP500SnapshotDate)
	if f, _, _ := sharesOf(t, p, "NFX", "2025-06-30"); f.Value.Decimal.IntPart() != 424_926_346 {
		t.Errorf("a split history covers NFX, yet the snapshot was read: %+v", f)
	}
	// a snapshot whose price is itself a split factor from the last close is on another basis
	p = mk()
	snaps["NFX"] = MarketSnapshot{Price: mustPx("795.9"), MarketCap: shariah.NewNumber(decimal.NewFromInt(331_407_949_824))}
	AlignShares(p, nil, snaps, SP500SnapshotDate)
	if f, _, _ := sharesOf(t, p, "NFX", "2025-06-30"); f.Value.Decimal.IntPart() != 424_926_346 {
		t.Errorf("snapshot on another basis read: %+v", f)
	}
}

// Shares that disagree with the later cover counts by a split factor, with no split to place, are held
// back (NOW's rows that a later filing's restatement dated after its 5-for-1 split).
func TestAlignSharesDisagreeingCount(t *testing.T) {
	p := &Pack{Fundamentals: []shariah.Fundamentals{
		sharesPeriod("SWN", "2025-03-31", 207_000_000, "2026-04-23"),
		sharesPeriod("SWN", "2025-12-31", 1_047_278_000, "2026-01-29"),
		sharesPeriod("SWN", "2026-03-31", 1_031_000_000, "2026-04-23"),
		sharesPeriod("SWN", "2026-06-30", 1_034_000_000, "2026-07-23")}}
	AlignShares(p, map[string]bool{"SWN": true}, nil, SP500SnapshotDate)
	if _, why, ok := sharesOf(t, p, "SWN", "2025-03-31"); ok || !strings.HasPrefix(why, market.SplitUnplaced) || !strings.Contains(why, "about 0.2 times") {
		t.Errorf("disagreeing count kept: %v %q", ok, why)
	}
	for _, end := range []string{"2025-12-31", "2026-03-31", "2026-06-30"} {
		if _, _, ok := sharesOf(t, p, "SWN", end); !ok {
			t.Errorf("%s held back", end)
		}
	}
}

// The shared data through ReadAllShared: the companyfacts-derived quarters load below the inline-XBRL
// filings with their provenance, and every share count is on the closes' basis.
func TestSharedSharesAndCompanyfactsDerived(t *testing.T) {
	p, _, err := ReadAllShared(os.DirFS(sharedDataDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]shariah.Fundamentals{}
	for _, f := range p.Fundamentals {
		by[f.Symbol] = append(by[f.Symbol], f)
	}
	period := func(sym, end string) shariah.Fundamentals {
		for _, f := range by[sym] {
			if f.PeriodEnd == end {
				return f
			}
		}
		t.Fatalf("%s has no period %s", sym, end)
		return shariah.Fundamentals{}
	}
	// NFLX: the cover page of nflx-10-q-2025-07-18.html (dei:EntityCommonStockSharesOutstanding,
	// 424,926,346) is before its 10-for-1 split; the closes are adjusted for it.
	nflx := period("NFLX", "2025-06-30").Facts[shariah.SharesOutstanding]
	if nflx.Value.Decimal.IntPart() != 4_249_263_460 || !strings.Contains(nflx.Note, "10-for-1") || nflx.Document == "" {
		t.Errorf("NFLX shares: %+v", nflx)
	}
	// MSFT from the companyfacts-derived set: 2025-06-30 total assets 619,003 M USD (its FY2025 10-K,
	// per SOURCES.md), the fourth quarter derived from the 10-K filed 2026-07-29; no interest income.
	msft := period("MSFT", "2025-06-30")
	ta := msft.Facts[shariah.TotalAssets]
	if ta.Value.Decimal.IntPart() != 619_003_000_000 || ta.Source != shariah.SourceFiling || ta.Form != "10-K" || ta.Filed != "2026-07-29" ||
		ta.CIK != "0000789019" || !strings.Contains(ta.Ref, "10-K") || ta.Tag != "Assets" {
		t.Errorf("MSFT total assets: %+v", ta)
	}
	if _, ok := msft.Facts[shariah.InterestIncome]; ok || !strings.Contains(msft.Missing[shariah.InterestIncome], "only for banks") {
		t.Errorf("MSFT interest income: %v", msft.Missing[shariah.InterestIncome])
	}
	if len(by["MSFT"]) != 8 {
		t.Errorf("MSFT: %d quarters", len(by["MSFT"]))
	}
	// PG and WMT keep their inline-XBRL filings: nothing of theirs from the companyfacts-derived set.
	for _, sym := range []string{"PG", "WMT"} {
		for _, f := range by[sym] {
			for field, fact := range f.Facts {
				if strings.Contains(fact.Ref, "sec-dataset") || fact.Document == "" {
					t.Errorf("%s %s %s from %q", sym, f.PeriodEnd, field, fact.Ref)
				}
			}
		}
	}
	// NOW: 5-for-1 between 2025-10-30 and 2026-01-29 (the set's split history). The 10-Q filed
	// 2025-10-30 counts 206 million before it (x5); the rows a 2026 filing dated with a pre-split count
	// are held back; the latest is on the closes' basis as filed.
	if f := period("NOW", "2024-09-30").Facts[shariah.SharesOutstanding]; f.Value.Decimal.IntPart() != 1_030_000_000 {
		t.Errorf("NOW 2024-09-30: %+v", f)
	}
	if why := period("NOW", "2025-03-31").Missing[shariah.SharesOutstanding]; !strings.HasPrefix(why, market.SplitUnplaced) {
		t.Errorf("NOW 2025-03-31: %q", why)
	}
	if f := period("NOW", "2026-06-30").Facts[shariah.SharesOutstanding]; f.Value.Decimal.IntPart() != 1_034_000_000 {
		t.Errorf("NOW 2026-06-30: %+v", f)
	}
	// PANW (2-for-1) and ANET (4-for-1): the pre-split counts of their first rows are held back.
	for _, c := range []struct{ sym, end string }{{"PANW", "2024-10-31"}, {"ANET", "2024-09-30"}} {
		if why := period(c.sym, c.end).Missing[shariah.SharesOutstanding]; !strings.HasPrefix(why, market.SplitUnplaced) {
			t.Errorf("%s %s: %q", c.sym, c.end, why)
		}
	}
	// CSCO: the combined concept (14,549 M) is smaller than cash (8,346 M) plus investments (7,764 M).
	if why := period("CSCO", "2025-07-26").Missing[shariah.CashAndSecurities]; !strings.Contains(why, "contradicted") {
		t.Errorf("CSCO cash: %q", why)
	}
	if _, ok := period("CSCO", "2025-04-26").Facts[shariah.CashAndSecurities]; !ok {
		t.Error("CSCO 2025-04-26 cash lost")
	}
	// no interest income is ever a zero nobody filed
	for _, f := range p.Fundamentals {
		if ii, ok := f.Facts[shariah.InterestIncome]; ok && ii.Value.IsZero() && strings.Contains(ii.Ref, "sec-dataset") {
			t.Errorf("%s %s: zero interest income", f.Symbol, f.PeriodEnd)
		}
	}
}

// The quote's market cap is held back, with the reason, when the latest period's count is suspect.
func TestLoadQuoteHoldsBackSuspectCap(t *testing.T) {
	st, _ := freshStore(t)
	ctx := context.Background()
	start := time.Date(2024, 12, 30, 0, 0, 0, 0, time.UTC)
	p := &Pack{Assets: []shariah.Asset{{Symbol: "SUS", Name: "Suspect Co", Type: shariah.Equity, Currency: "USD"},
		{Symbol: "OKC", Name: "Fine Co", Type: shariah.Equity, Currency: "USD"}},
		Fundamentals: []shariah.Fundamentals{
			sharesPeriod("SUS", "2024-12-31", 1_000_000, "2025-01-20"),
			sharesPeriod("SUS", "2025-03-31", 3_500_000, "2025-04-20"), // 3.5x (no split factor): the cap moves 3.7x
			sharesPeriod("OKC", "2025-03-31", 1_000_000, "2025-04-20")}}
	p.Series = append(p.Series, dailySeries("SUS", start, "10", "10", "10.5")...)
	p.Series = append(p.Series, dailySeries("OKC", start, "10", "10", "10.5")...)
	AlignShares(p, map[string]bool{"SUS": true, "OKC": true}, nil, SP500SnapshotDate)
	if _, err := Load(ctx, st, p, Extras{}, start.AddDate(0, 6, 0)); err != nil {
		t.Fatal(err)
	}
	qs, err := st.Quotes(ctx, []string{"SUS", "OKC"})
	if err != nil {
		t.Fatal(err)
	}
	if q := qs["SUS"]; q.MarketCap != nil || !strings.Contains(q.MarketCapNote, "held back") {
		t.Errorf("SUS: market cap %v, note %q", q.MarketCap, q.MarketCapNote)
	}
	if q := qs["OKC"]; q.MarketCap == nil || q.MarketCap.Decimal.IntPart() != 10_500_000 || q.MarketCapNote != "" {
		t.Errorf("OKC: market cap %v, note %q", q.MarketCap, q.MarketCapNote)
	}
}

func BenchmarkReadCompanyfactsDerived(b *testing.B) {
	fsys := os.DirFS(sharedDataDir(b))
	b.ReportAllocs()
	for b.Loop() {
		if p := ReadCompanyfactsDerived(fsys, map[string]bool{"PG": true, "WMT": true}); len(p.Fundamentals) < 900 {
			b.Fatalf("%d quarters", len(p.Fundamentals))
		}
	}
}

// BenchmarkAlignSharesShared aligns the shares of the whole shared data set (each iteration on a fresh
// copy of the fundamentals, which the timing includes).
func BenchmarkAlignSharesShared(b *testing.B) {
	fsys := os.DirFS(sharedDataDir(b))
	p, x, err := ReadShared(fsys)
	if err != nil {
		b.Fatal(err)
	}
	p.Add(ReadSEC(fsys))
	p.Add(ReadCompanyfactsDerived(fsys, map[string]bool{"PG": true, "WMT": true}))
	orig := p.Fundamentals
	b.ReportAllocs()
	for b.Loop() {
		fs := make([]shariah.Fundamentals, len(orig))
		for i, f := range orig {
			f.Facts = maps.Clone(f.Facts)
			f.Missing = maps.Clone(f.Missing)
			fs[i] = f
		}
		p.Fundamentals, p.Problems = fs, nil
		AlignShares(p, nil, x.Snapshots, SP500SnapshotDate)
	}
}
