package finance_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/finance"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/screening"
)

func pfact(v, src string) shariah.Fact {
	return shariah.Fact{Value: shariah.NewNumber(dec(v)), Source: src, Ref: "ref-" + v}
}

func TestImpureIncomePerShare(t *testing.T) {
	t.Parallel()
	fs := []shariah.Fundamentals{
		// newest first on purpose: the result is oldest first
		{PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.InterestIncome: pfact("2", "filing"), shariah.SharesOutstanding: pfact("3", "filing")}},
		{PeriodEnd: "2026-03-31", Period: "Q1", Facts: map[shariah.Field]shariah.Fact{ // not a fiscal year
			shariah.InterestIncome: pfact("100", "filing"), shariah.SharesOutstanding: pfact("1", "filing")}},
		{PeriodEnd: "2024-12-31", Period: "FY", Facts: map[shariah.Field]shariah.Fact{
			shariah.InterestIncome: pfact("1000000", "filing"), shariah.ImpureRevenue: pfact("234567", "illustrative"),
			shariah.SharesOutstanding: pfact("1000000", "filing")}},
		{PeriodEnd: "2023-12-31", Period: "FY", Facts: map[shariah.Field]shariah.Fact{ // no shares
			shariah.InterestIncome: pfact("5", "filing")}},
		{PeriodEnd: "2022-12-31", Period: "FY", Facts: map[shariah.Field]shariah.Fact{ // no interest income
			shariah.ImpureRevenue: pfact("5", "filing"), shariah.SharesOutstanding: pfact("1", "filing")}},
		{PeriodEnd: "2021-12-31", Period: "FY", Facts: map[shariah.Field]shariah.Fact{ // zero shares
			shariah.InterestIncome: pfact("5", "filing"), shariah.SharesOutstanding: pfact("0", "filing")}},
	}
	got := finance.ImpureIncomePerShare(fs)
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	// 2024: (1,000,000 + 234,567) / 1,000,000 = 1.234567
	if got[0].PeriodEnd != "2024-12-31" || got[0].Source != "filing, illustrative" || got[0].Ref != "ref-1000000" {
		t.Errorf("%+v", got[0])
	}
	wantDec(t, "2024 per share", got[0].PerShare, "1.234567")
	// 2025: 2 / 3 = 0.6666666... -> 0.666667 (6 places, half away from zero)
	if got[1].PeriodEnd != "2025-12-31" || got[1].Currency != "USD" || got[1].Source != "filing" {
		t.Errorf("%+v", got[1])
	}
	wantDec(t, "2025 per share", got[1].PerShare, "0.666667")
	if b, _ := json.Marshal(got[1]); !strings.Contains(string(b), `"impure_income_per_share":0.666667`) {
		t.Errorf("%s", b)
	}
	if out := finance.ImpureIncomePerShare(nil); out == nil || len(out) != 0 {
		t.Errorf("no periods: %v", out)
	}
}

func TestPurificationValidation(t *testing.T) {
	t.Parallel()
	many := make([]finance.PurificationHolding, finance.MaxPurificationHoldings+1)
	for i := range many {
		many[i] = finance.PurificationHolding{Symbol: "AAPL", Shares: decp("1")}
	}
	cases := []struct {
		name string
		req  finance.PurificationRequest
		typ  string
		loc  []any
	}{
		{"no holdings", finance.PurificationRequest{}, "value_error.list.min_items", []any{"body", "holdings"}},
		{"too many holdings", finance.PurificationRequest{Holdings: many}, "value_error.list.max_items", []any{"body", "holdings"}},
		{"negative income", finance.PurificationRequest{Holdings: []finance.PurificationHolding{{Symbol: "AAPL", DividendIncome: decp("-1")}}},
			"value_error.number.not_ge", []any{"body", "holdings", 0, "dividend_income"}},
		{"negative shares", finance.PurificationRequest{Holdings: []finance.PurificationHolding{{Symbol: "AAPL", DividendIncome: decp("1")}, {Symbol: "MSFT", Shares: decp("-1")}}},
			"value_error.number.not_ge", []any{"body", "holdings", 1, "shares"}},
		{"unknown method", finance.PurificationRequest{Method: "zakat", Holdings: many[:1]}, "value_error.enum", []any{"body", "method"}},
		{"dividend method without income or shares", finance.PurificationRequest{Holdings: []finance.PurificationHolding{{Symbol: "AAPL"}}},
			"value_error.missing", []any{"body", "holdings", 0}},
		{"aaoifi without shares", finance.PurificationRequest{Method: "AAOIFI", Holdings: []finance.PurificationHolding{{Symbol: "AAPL", DividendIncome: decp("1")}}},
			"value_error.missing", []any{"body", "holdings", 0, "shares"}},
		{"bad symbol", finance.PurificationRequest{Holdings: []finance.PurificationHolding{{Symbol: "$$$", DividendIncome: decp("1")}}},
			"value_error.symbol", []any{"body", "holdings", 0, "symbol"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := (&finance.Purifier{}).Calculate(context.Background(), c.req) // validates before any read
			if errs := fieldErrors(t, err); !hasFieldError(errs, c.typ, c.loc...) {
				t.Errorf("want %s at %v, got %+v", c.typ, c.loc, errs)
			}
		})
	}
	req := finance.PurificationRequest{Holdings: []finance.PurificationHolding{{Symbol: " aapl ", DividendIncome: decp("0")}}}
	if err := req.Validate(); err != nil || req.Method != "dividend" || req.Holdings[0].Symbol != "AAPL" {
		t.Errorf("defaults: %v %+v", err, req)
	}
}

func TestPurificationWithStore(t *testing.T) {
	t.Parallel()
	store, rc := startRefStore(t)
	ctx := context.Background()
	screener := &screening.Screener{Ref: store, Results: sredis.NewResultStore(rc), Rulesets: allRulesets(t)}
	p := &finance.Purifier{Ref: store, Screener: screener, Disclaimers: func(ids ...string) []shariah.Disclaimer {
		out := []shariah.Disclaimer{}
		for _, id := range ids {
			out = append(out, shariah.Disclaimer{ID: id})
		}
		return out
	}}
	aapl, _, err := screener.Screen(ctx, "AAPL", screening.ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if aapl.PurificationFraction == nil || !aapl.PurificationFraction.IsPositive() {
		t.Fatalf("AAPL purification rate %v: the test needs a known positive rate", aapl.PurificationFraction)
	}
	// The calculator multiplies by the fraction; purification_rate is the same rate in percent.
	rate := aapl.PurificationFraction.Decimal
	if !aapl.PurificationRate.Equal(rate.Mul(dec("100"))) {
		t.Fatalf("purification_rate %s is not 100 x the fraction %s", aapl.PurificationRate, rate)
	}
	// records of the test: an equity whose revenue is unknown (no purification rate), and one with
	// hand-made fiscal years for the aaoifi method
	if err := store.PutAssets(ctx, []shariah.Asset{
		{Symbol: "NORATE", Name: "No Revenue Corp", Type: shariah.Equity, Currency: "USD", Sector: "Information Technology"},
		{Symbol: "PURX", Name: "Purification Test Corp", Type: shariah.Equity, Currency: "USD"},
		{Symbol: "DIVX", Name: "Dividend Test Corp", Type: shariah.Equity, Currency: "USD", Sector: "Information Technology"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := store.PutFundamentals(ctx, map[string][]shariah.Fundamentals{
		"NORATE": {{Symbol: "NORATE", PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.SharesOutstanding: pfact("1000", "filing"), shariah.CashAndSecurities: pfact("10", "filing")}}},
		// DIVX: purification rate (10,000 + 20,000) / 1,000,000 = 0.03
		"DIVX": {{Symbol: "DIVX", PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.TotalRevenue: pfact("1000000", "filing"), shariah.InterestIncome: pfact("10000", "filing"),
			shariah.ImpureRevenue: pfact("20000", "filing"), shariah.SharesOutstanding: pfact("1000", "filing")}}},
		"PURX": {
			{Symbol: "PURX", PeriodEnd: "2024-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
				shariah.InterestIncome: pfact("5000000", "filing"), shariah.SharesOutstanding: pfact("1000000", "filing")}},
			{Symbol: "PURX", PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
				shariah.InterestIncome: pfact("1000000", "filing"), shariah.ImpureRevenue: pfact("234567", "filing"),
				shariah.SharesOutstanding: pfact("1000000", "filing")}},
			{Symbol: "PURX", PeriodEnd: "2026-03-31", Period: "Q1", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
				shariah.InterestIncome: pfact("9000000", "filing"), shariah.SharesOutstanding: pfact("1000000", "filing")}},
		},
	}); err != nil {
		t.Fatal(err)
	}

	if err := store.PutDividends(ctx, "DIVX", []shariah.Dividend{
		{Symbol: "DIVX", ExDate: "2025-06-30", Amount: shariah.NewNumber(dec("1.00")), Currency: "USD", Source: "filing"},
		{Symbol: "DIVX", ExDate: "2025-09-30", Amount: shariah.NewNumber(dec("0.50")), Currency: "USD", Source: "filing"},
		{Symbol: "DIVX", PeriodEnd: "2026-06-30", Ref: "0000000000-26-000010", Amount: shariah.NewNumber(dec("0.25")), Currency: "USD", Source: "filing"},
	}); err != nil {
		t.Fatal(err)
	}

	t.Run("hand-checked rate, window and rounding", func(t *testing.T) {
		res, err := p.Calculate(ctx, finance.PurificationRequest{Holdings: []finance.PurificationHolding{
			{Symbol: "DIVX", Shares: decp("100")},
			{Symbol: "DIVX", DividendIncome: decp("0.5")},
			{Symbol: "DIVX", DividendIncome: decp("0.5")},
			{Symbol: "DIVX", DividendIncome: decp("0.5")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		h := res.Holdings[0]
		// latest dividend: the filing's 0.25 dated by its period end 2026-06-30; the window is after
		// 2025-06-30 (so the 1.00 of exactly 12 months before is out): 0.50 + 0.25 = 0.75 per share,
		// x 100 = 75.00 of income, x 0.03 = 2.25
		if h.Status != "ok" || h.DividendBasis.From != "2025-06-30" || h.DividendBasis.To != "2026-06-30" || len(h.DividendBasis.Payments) != 2 {
			t.Fatalf("%+v %+v", h, h.DividendBasis)
		}
		wantDec(t, "rate", *h.Rate, "0.03")
		wantDec(t, "per share", h.DividendBasis.PerShare, "0.75")
		wantDec(t, "dividend_income", *h.DividendIncome, "75")
		wantDec(t, "amount", *h.Amount, "2.25")
		// each 0.5 x 0.03 = 0.015, shown as 0.02; the total is 2.25 + 3 x 0.015 = 2.295 -> 2.30 (rounding
		// each first would give 2.25 + 0.06 = 2.31)
		wantDec(t, "small amount", *res.Holdings[1].Amount, "0.02")
		wantDec(t, "total_amount", res.TotalAmount, "2.30")
	})

	t.Run("dividend income x rate", func(t *testing.T) {
		res, err := p.Calculate(ctx, finance.PurificationRequest{Holdings: []finance.PurificationHolding{
			{Symbol: "aapl", DividendIncome: decp("1234.56")},
			{Symbol: "ZZZZQ", DividendIncome: decp("1000")},
			{Symbol: "NORATE", DividendIncome: decp("1000")},
			{Symbol: "SPUS", DividendIncome: decp("1000")}, // an ETF: no company rate
			{Symbol: "AAPL", DividendIncome: decp("0.005")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		h := res.Holdings[0]
		want := dec("1234.56").Mul(rate)
		if h.Status != "ok" || h.Symbol != "AAPL" || !h.Rate.Equal(rate) || h.RateSource == nil ||
			h.RateSource.Ruleset != aapl.Ruleset.Name || h.RateSource.AsOf != aapl.DataQuality.AsOf || len(h.RateSource.Sources) == 0 || h.RateSource.Method == "" {
			t.Fatalf("%+v %+v", h, h.RateSource)
		}
		wantDec(t, "amount", *h.Amount, want.Round(2).String())
		for i, st := range []string{"ok", "NOT_FOUND", "RATE_UNKNOWN", "RATE_UNKNOWN", "ok"} {
			if res.Holdings[i].Status != st || (st != "ok" && (res.Holdings[i].Amount != nil || res.Holdings[i].Message == "")) {
				t.Errorf("holding %d: %+v, want %s", i, res.Holdings[i], st)
			}
		}
		if !strings.Contains(res.Holdings[2].Message, "unknown") {
			t.Errorf("RATE_UNKNOWN message: %s", res.Holdings[2].Message)
		}
		if strings.Join(res.Excluded, ",") != "ZZZZQ,NORATE,SPUS" {
			t.Errorf("excluded %v", res.Excluded)
		}
		// total: the unrounded amounts summed, then rounded
		wantDec(t, "total_amount", res.TotalAmount, dec("1234.565").Mul(rate).Round(2).String())
		if res.Method != "dividend" || res.Ruleset != aapl.Ruleset.Name || len(res.Disclaimers) != 1 || res.Disclaimers[0].ID != "purification" ||
			res.Illustrative != aapl.DataQuality.Illustrative {
			t.Errorf("method %q ruleset %q disclaimers %v illustrative %v", res.Method, res.Ruleset, res.Disclaimers, res.Illustrative)
		}
	})

	t.Run("shares only: trailing dividends", func(t *testing.T) {
		res, err := p.Calculate(ctx, finance.PurificationRequest{Holdings: []finance.PurificationHolding{
			{Symbol: "AAPL", Shares: decp("100")},
			{Symbol: "NVDA", Shares: decp("100")}, // no dividends in the default pack
		}})
		if err != nil {
			t.Fatal(err)
		}
		h := res.Holdings[0]
		// default pack: AAPL 0.26 (2026-02-09), 0.26 (2026-05-11), 0.27 (2026-08-10): all after 2025-08-10,
		// 0.79 per share x 100 = 79.00 of income
		if h.Status != "ok" || h.DividendBasis == nil || h.DividendBasis.From != "2025-08-10" || h.DividendBasis.To != "2026-08-10" ||
			len(h.DividendBasis.Payments) != 3 {
			t.Fatalf("%+v %+v", h, h.DividendBasis)
		}
		wantDec(t, "per share", h.DividendBasis.PerShare, "0.79")
		wantDec(t, "dividend_income", *h.DividendIncome, "79.00")
		wantDec(t, "amount", *h.Amount, dec("79").Mul(rate).Round(2).String())
		if res.Holdings[1].Status != "NO_DIVIDENDS" || res.Holdings[1].Amount != nil {
			t.Errorf("%+v", res.Holdings[1])
		}
		wantDec(t, "total_amount", res.TotalAmount, dec("79").Mul(rate).Round(2).String())
	})

	t.Run("aaoifi: impure income per share", func(t *testing.T) {
		fs, err := store.Fundamentals(ctx, "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		// AAPL's latest fiscal year with interest income and shares, from the stored facts
		var fy *shariah.Fundamentals
		for i := range fs {
			_, ii := fs[i].Facts[shariah.InterestIncome]
			if fs[i].Period == "FY" && ii && fs[i].Facts[shariah.SharesOutstanding].Value.IsPositive() && (fy == nil || fs[i].PeriodEnd > fy.PeriodEnd) {
				fy = &fs[i]
			}
		}
		if fy == nil {
			t.Fatal("AAPL has no fiscal year with interest income")
		}
		perShare := fy.Facts[shariah.InterestIncome].Value.Decimal.Add(fy.Facts[shariah.ImpureRevenue].Value.Decimal).
			DivRound(fy.Facts[shariah.SharesOutstanding].Value.Decimal, 6)

		res, err := p.Calculate(ctx, finance.PurificationRequest{Method: "aaoifi", Holdings: []finance.PurificationHolding{
			{Symbol: "AAPL", Shares: decp("250")},
			{Symbol: "PURX", Shares: decp("10")},
			{Symbol: "NORATE", Shares: decp("10")},
			{Symbol: "ZZZZQ", Shares: decp("10")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		a, px := res.Holdings[0], res.Holdings[1]
		if a.Status != "ok" || a.Period == nil || a.Period.PeriodEnd != fy.PeriodEnd || !a.Illustrative {
			t.Fatalf("%+v", a)
		}
		wantDec(t, "AAPL per share", *a.ImpureIncomePerShare, perShare.String())
		wantDec(t, "AAPL amount", *a.Amount, perShare.Mul(dec("250")).Round(2).String())
		// PURX: latest FY 2025-12-31 (the Q1 is not a fiscal year, 2024 is older):
		// (1,000,000 + 234,567) / 1,000,000 = 1.234567 per share x 10 = 12.34567 -> 12.35
		if px.Status != "ok" || px.Period.PeriodEnd != "2025-12-31" || px.Period.Source != "filing" || px.Illustrative {
			t.Fatalf("%+v", px)
		}
		wantDec(t, "PURX amount", *px.Amount, "12.35")
		if res.Holdings[2].Status != "NO_FUNDAMENTALS" || res.Holdings[3].Status != "NOT_FOUND" {
			t.Errorf("%+v %+v", res.Holdings[2], res.Holdings[3])
		}
		// total of the unrounded amounts: AAPL x 250 + 12.34567
		wantDec(t, "total_amount", res.TotalAmount, perShare.Mul(dec("250")).Add(dec("12.34567")).Round(2).String())
		if res.Ruleset != "" || strings.Join(res.Excluded, ",") != "NORATE,ZZZZQ" {
			t.Errorf("ruleset %q excluded %v", res.Ruleset, res.Excluded)
		}
	})

	t.Run("unknown ruleset", func(t *testing.T) {
		_, err := p.Calculate(ctx, finance.PurificationRequest{Ruleset: "nope", Holdings: []finance.PurificationHolding{{Symbol: "AAPL", DividendIncome: decp("1")}}})
		if errs := fieldErrors(t, err); !hasFieldError(errs, "value_error.ruleset", "body", "ruleset") {
			t.Errorf("%+v", errs)
		}
	})
}
