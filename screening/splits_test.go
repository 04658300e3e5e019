package screening_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/datapack"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

func TestMatchSplitFactor(t *testing.T) {
	for _, c := range []struct {
		ratio float64
		want  string // "" = not a split factor
	}{
		{10, "10"}, {9.8, "10"}, {0.1, "0.1"}, {0.102, "0.1"}, {2.015, "2"}, {4.006, "4"}, {0.2, "0.2"}, {25, "25"},
		{1.5, ""}, {1.157, ""}, {3.5, ""}, {2.4, ""}, {0, ""}, {-10, ""},
	} {
		k, ok := market.MatchSplitFactor(c.ratio)
		if got := map[bool]string{true: k.String(), false: ""}[ok]; got != c.want {
			t.Errorf("MatchSplitFactor(%v) = %q, want %q", c.ratio, got, c.want)
		}
	}
}

func TestSplitBasis(t *testing.T) {
	ten := market.Split{Symbol: "X", After: "2025-10-30", On: "2026-01-29", Ratio: decimal.NewFromInt(10), Source: "h"}
	exact := market.Split{Symbol: "X", On: "2024-06-10", Ratio: decimal.NewFromInt(4), Source: "h"}
	for _, c := range []struct {
		at       string
		factor   string
		unplaced int
	}{
		{"2024-01-01", "40", 0}, // before both
		{"2024-06-10", "10", 0}, // on the exact day: already split (the later 10-for-1 still applies)
		{"2024-06-09", "40", 0},
		{"2025-10-30", "10", 0}, // the window's exclusive start: before
		{"2025-12-01", "1", 1},  // inside the window: cannot be placed
		{"2026-01-29", "1", 0},  // the window's end: after
		{"", "1", 2},            // no date: nothing can be placed
	} {
		f, _, un := market.SplitBasis([]market.Split{exact, ten}, c.at)
		if f.String() != c.factor || len(un) != c.unplaced {
			t.Errorf("at %q: factor %s, %d unplaced; want %s, %d", c.at, f, len(un), c.factor, c.unplaced)
		}
	}
	if ten.Name() != "10-for-1" || (market.Split{Ratio: decimal.RequireFromString("0.125")}).Name() != "1-for-8" ||
		(market.Split{Ratio: decimal.RequireFromString("1.5")}).Name() != "3-for-2" {
		t.Error("split names")
	}
}

// withPrior adds a period ending 2026-03-31 before base's 2026-06-30, with the given shares (base's
// closes are 1.00, so each period's market cap is its share count).
func withPrior(shares int64) screening.ScreenInputs {
	in := base()
	prior := shariah.Fundamentals{Symbol: "TEST", PeriodEnd: "2026-03-31", Period: "Q1", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{}}
	for k, v := range in.Fundamentals[0].Facts {
		prior.Facts[k] = v
	}
	prior.Facts[shariah.SharesOutstanding] = fact(shares)
	in.Fundamentals = append([]shariah.Fundamentals{prior}, in.Fundamentals...)
	return in
}

// A market cap that moves more than 3x between consecutive periods is held back: the market-cap ratios
// are unknown with the reason, the methodologies using them have insufficient data, and no market cap
// is served; 2.5x is served.
func TestSuspectMarketCapRule(t *testing.T) {
	spec := allRulesets(t)["spec"]
	res := screening.Screen(withPrior(250_000), spec, "") // 0.25M -> 1M: 4x
	debt := ratioOf(t, res, "DJIM", "debt")
	if debt.Pass != nil || len(debt.Missing) != 1 || debt.Missing[0] != "market_cap (held back as suspect)" {
		t.Errorf("DJIM debt at 4x: %+v", debt)
	}
	if v := res.ByMethodology[screening.MethodologyKey("DJIM")].Verdict; v != screening.InsufficientData {
		t.Errorf("DJIM verdict %s", v)
	}
	if r := ratioOf(t, res, "AAOIFI", "debt"); r.Pass == nil || !*r.Pass {
		t.Errorf("AAOIFI (total assets) should not be touched: %+v", r)
	}
	if res.MarketCap != nil || !strings.Contains(strings.Join(res.DataQuality.Notes, "|"), "more than 3x between consecutive periods") {
		t.Errorf("market cap %v, notes %v", res.MarketCap, res.DataQuality.Notes)
	}
	// marked wherever a person looks: the screening, and exactly the ratios on the market cap
	if m := screening.MarksOf(res); m.Label() != "suspect market cap" || len(debt.Marks) != 1 || debt.Marks[0] != screening.MarkSuspectMarketCap {
		t.Errorf("marks %+v, DJIM debt marks %v", m, debt.Marks)
	}
	if r := ratioOf(t, res, "AAOIFI", "debt"); len(r.Marks) != 0 {
		t.Errorf("AAOIFI debt (total assets) marked %v", r.Marks)
	}
	// 4x down is the same
	if r := ratioOf(t, screening.Screen(withPrior(4_000_000), spec, ""), "SP", "debt"); r.Pass != nil {
		t.Errorf("S&P debt at 1/4x: %+v", r)
	}
	res = screening.Screen(withPrior(400_000), spec, "") // 2.5x
	if r := ratioOf(t, res, "DJIM", "debt"); r.Pass == nil || res.MarketCap == nil {
		t.Errorf("2.5x held back: %+v", r)
	}
	// the latest period's count held back (a split the data cannot place): the cap is suspect, even
	// though an earlier period has shares
	in := withPrior(1_000_000)
	delete(in.Fundamentals[1].Facts, shariah.SharesOutstanding)
	in.Fundamentals[1].Missing = map[shariah.Field]string{shariah.SharesOutstanding: market.SplitUnplaced + "test: cannot be placed"}
	res = screening.Screen(in, spec, "")
	if r := ratioOf(t, res, "SP", "debt"); r.Pass != nil || !strings.Contains(strings.Join(res.DataQuality.Notes, "|"), "cannot be placed") {
		t.Errorf("unplaced split: %+v %v", r, res.DataQuality.Notes)
	}
}

// Shares put on the closes' basis say so in the market-cap ratios and the data-quality notes.
func TestSplitAdjustedSharesNamed(t *testing.T) {
	in := base()
	f := in.Fundamentals[0].Facts[shariah.SharesOutstanding]
	f.Note = "on the closes' basis: the cover count 100000 (as of 2026-07-10) x 10 for the 10-for-1 split 2026-08-01 (test)"
	in.Fundamentals[0].Facts[shariah.SharesOutstanding] = f
	res := screening.Screen(in, allRulesets(t)["spec"], "")
	if r := ratioOf(t, res, "SP", "debt"); !strings.Contains(r.Note, "10-for-1") {
		t.Errorf("ratio note %q", r.Note)
	}
	if !strings.Contains(strings.Join(res.DataQuality.Notes, "|"), "market cap: shares_outstanding on the closes' basis") {
		t.Errorf("notes %v", res.DataQuality.Notes)
	}
	if r := ratioOf(t, res, "AAOIFI", "debt"); r.Note != "" {
		t.Errorf("a total-assets ratio carries the split note: %q", r.Note)
	}
}

// NFLX and MSFT screened from the shared data as load --shared reads it (ReadAllShared).
func TestSharedNFLXAndMSFT(t *testing.T) {
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = "../../shared/data"
	}
	if _, err := os.Stat(dir + "/sec/companyfacts-derived"); err != nil {
		t.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR): %v", dir, err)
	}
	p, _, err := datapack.ReadAllShared(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	spec := allRulesets(t)["spec"]
	inputs := func(sym string) screening.ScreenInputs {
		in := screening.ScreenInputs{PriceSource: shariah.SourceHistory, Now: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}
		for _, a := range p.Assets {
			if a.Symbol == sym && a.Sector != "" && in.Asset.Symbol == "" {
				in.Asset = a
			}
		}
		in.Asset.Symbol, in.Asset.Currency = sym, "USD"
		for _, f := range p.Fundamentals {
			if f.Symbol == sym {
				in.Fundamentals = append(in.Fundamentals, f)
			}
		}
		shariah.SortFundamentals(in.Fundamentals)
		for _, s := range p.Series {
			if s.Symbol == sym && s.Interval == "1mo" {
				in.Monthly = s.Bars
			}
		}
		return in
	}
	// NFLX: 424,926,346 shares on the cover of nflx-10-q-2025-07-18.html (dei:EntityCommonStockSharesOutstanding)
	// are before the 10-for-1 split; on the closes' basis the market cap is about $400B, and the
	// debt ratios against it (S&P 36-month, DJIM 24-month averages) pass.
	res := screening.Screen(inputs("NFLX"), spec, "")
	if res.MarketCap == nil || res.MarketCap.LessThan(decimal.NewFromInt(350e9)) || res.MarketCap.GreaterThan(decimal.NewFromInt(450e9)) {
		t.Errorf("NFLX market cap %v", res.MarketCap)
	}
	for _, m := range []string{"SP", "DJIM"} {
		r := ratioOf(t, res, m, "debt")
		if r.ValuePct != nil {
			t.Logf("NFLX %s debt: %s / %s = %s%% (market cap now %s)", m, r.Numerator, r.Denominator.Round(0), *r.ValuePct, res.MarketCap.Round(0))
		}
		if r.Pass == nil || !*r.Pass || r.Value == nil || r.Value.GreaterThan(decimal.RequireFromString("0.10")) || !strings.Contains(r.Note, "10-for-1") {
			t.Errorf("NFLX %s debt: %+v", m, r)
		}
	}
	// MSFT screens on its filed quarters (companyfacts-derived), not on illustrative inputs; the
	// provenance names the 10-K and its filing date.
	res = screening.Screen(inputs("MSFT"), spec, "")
	dq := res.DataQuality
	if dq.Illustrative || dq.Period != "Q4" || dq.AsOf != "2026-06-30" || !strings.Contains(strings.Join(dq.SourceRefs, "|"), "10-K (fourth quarter: fiscal year less nine months) filed 2026-07-29") {
		t.Errorf("MSFT data quality: %+v", dq)
	}
	// interest income is not filed in the set: never zero, it is bounded by the filed cash (interest_bound.go)
	if len(dq.Bounded) != 1 || dq.Bounded[0].Field != "interest_income" || len(dq.CarriedForward) != 0 {
		t.Errorf("MSFT interest income should be bounded (not filed in the set): bounded %+v, missing %v", dq.Bounded, dq.MissingFields)
	}
}
