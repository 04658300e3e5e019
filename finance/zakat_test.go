package finance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/market"
)

// pricedRequest has both metal prices given: gold 100/g (nisab 85 x 100 = 8500.00), silver 2/g (nisab
// 595 x 2 = 1190.00).
func pricedRequest() finance.ZakatRequest {
	return finance.ZakatRequest{GoldPricePerGram: decp("100"), SilverPricePerGram: decp("2")}
}

func TestZakatNisabBoundaries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, metal, gold, silver, cash string
		due                             bool
		amount, threshold, nisabMetal   string
	}{
		// gold 100/g: nisab 85 x 100 = 8500.00. Due only ABOVE it.
		{"gold at nisab", "gold", "100", "2", "8500.00", false, "0", "8500", "gold"},
		{"gold just over", "gold", "100", "2", "8500.01", true, "212.50", "8500", "gold"}, // 8500.01 x 0.025 = 212.50025
		{"gold just under", "gold", "100", "2", "8499.99", false, "0", "8500", "gold"},
		{"default metal is gold", "", "100", "2", "8500.01", true, "212.50", "8500", "gold"},
		// silver 2/g: nisab 595 x 2 = 1190.00
		{"silver at nisab", "silver", "100", "2", "1190.00", false, "0", "1190", "silver"},
		{"silver just over", "silver", "100", "2", "1190.01", true, "29.75", "1190", "silver"}, // 1190.01 x 0.025 = 29.75025
		{"silver just under", "silver", "100", "2", "1189.99", false, "0", "1190", "silver"},
		// lower: min(8500.00, 1190.00) = silver 1190.00
		{"lower picks silver", "lower", "100", "2", "1190.01", true, "29.75", "1190", "silver"},
		{"lower at silver nisab", "lower", "100", "2", "1190.00", false, "0", "1190", "silver"},
		// lower with gold 10/g: min(85 x 10 = 850.00, 1190.00) = gold 850.00
		{"lower picks gold", "lower", "10", "2", "850.01", true, "21.25", "850", "gold"}, // 850.01 x 0.025 = 21.25025
		{"lower at gold nisab", "lower", "10", "2", "850.00", false, "0", "850", "gold"},
		{"lower just under gold", "lower", "10", "2", "849.99", false, "0", "850", "gold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z := &finance.Zakat{} // no store: both prices given, cash only
			res, err := z.Calculate(context.Background(), finance.ZakatRequest{NisabMetal: c.metal, Cash: amt(c.cash),
				GoldPricePerGram: decp(c.gold), SilverPricePerGram: decp(c.silver)})
			if err != nil {
				t.Fatal(err)
			}
			if res.ZakatDue != c.due {
				t.Errorf("zakat_due = %v, want %v", res.ZakatDue, c.due)
			}
			wantDec(t, "amount_owed", res.AmountOwed, c.amount)
			wantDec(t, "nisab.threshold", res.Nisab.Threshold, c.threshold)
			if res.Nisab.Metal != c.nisabMetal {
				t.Errorf("nisab.metal = %s, want %s", res.Nisab.Metal, c.nisabMetal)
			}
			wantDec(t, "zakatable_wealth", res.ZakatableWealth, c.cash)
			if res.GoldPriceSource != "request" || res.SilverPriceSource != "request" || res.Illustrative {
				t.Errorf("sources %q %q illustrative %v", res.GoldPriceSource, res.SilverPriceSource, res.Illustrative)
			}
		})
	}
}

func TestZakatMarketValueMethod(t *testing.T) {
	t.Parallel()
	req := pricedRequest()
	req.Holdings = []finance.ZakatHolding{{Symbol: "aapl", MarketValue: decp("10000.10")}, {Symbol: "MSFT", MarketValue: decp("2000.20")}}
	req.Cash, req.Receivables, req.Debts = amt("500"), amt("250.05"), amt("750.35")
	res, err := (&finance.Zakat{}).Calculate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// holdings 10000.10 + 2000.20 = 12000.30; portfolio 12000.30 + 500 + 250.05 = 12750.35;
	// wealth 12750.35 - 750.35 = 12000.00 > 8500.00; zakat 12000.00 x 0.025 = 300.00
	wantDec(t, "holdings_value", *res.HoldingsValue, "12000.30")
	wantDec(t, "total_portfolio_value", *res.TotalPortfolioValue, "12750.35")
	wantDec(t, "zakatable_wealth", res.ZakatableWealth, "12000.00")
	wantDec(t, "amount_owed", res.AmountOwed, "300.00")
	wantDec(t, "zakat_rate", res.ZakatRate, "0.025")
	if !res.ZakatDue || res.Method != "market_value" || res.Currency != "USD" || res.NisabMetal != "gold" {
		t.Errorf("due %v method %q currency %q metal %q", res.ZakatDue, res.Method, res.Currency, res.NisabMetal)
	}
	if len(res.Holdings) != 2 || res.Holdings[0].Symbol != "AAPL" || res.Holdings[0].Status != "ok" || len(res.Excluded) != 0 {
		t.Fatalf("holdings %+v excluded %v", res.Holdings, res.Excluded)
	}
	wantDec(t, "holding market_value", *res.Holdings[0].MarketValue, "10000.10")
	// gold is the nisab: the silver alternative is among what the estimate skips, with hawl
	skipped := strings.Join(res.Skipped, "|")
	for _, w := range []string{"silver-nisab", "hawl", "business-inventory", "liability"} {
		if !strings.Contains(skipped, w) {
			t.Errorf("skipped lacks %q: %v", w, res.Skipped)
		}
	}
	if res.Disclaimers == nil || len(res.Disclaimers) != 0 {
		t.Errorf("disclaimers without a registry: %v", res.Disclaimers)
	}
	// with a registry, the zakat disclaimer is attached
	z := &finance.Zakat{Disclaimers: func(ids ...string) []shariah.Disclaimer {
		out := []shariah.Disclaimer{}
		for _, id := range ids {
			out = append(out, shariah.Disclaimer{ID: id})
		}
		return out
	}}
	req.NisabMetal = "silver"
	res, err = z.Calculate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Disclaimers) != 1 || res.Disclaimers[0].ID != "zakat" {
		t.Errorf("disclaimers %v", res.Disclaimers)
	}
	if strings.Contains(strings.Join(res.Skipped, "|"), "silver-nisab") {
		t.Errorf("silver nisab used but listed as skipped: %v", res.Skipped)
	}
}

func TestZakatDebtsExceedWealth(t *testing.T) {
	t.Parallel()
	req := pricedRequest()
	req.Holdings = []finance.ZakatHolding{{Symbol: "AAPL", MarketValue: decp("300")}}
	req.Cash, req.Debts = amt("100"), amt("1000")
	res, err := (&finance.Zakat{}).Calculate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// 300 + 100 - 1000 = -600.00: not due, nothing owed
	wantDec(t, "zakatable_wealth", res.ZakatableWealth, "-600.00")
	wantDec(t, "amount_owed", res.AmountOwed, "0")
	if res.ZakatDue || res.AmountOwed.IsNegative() {
		t.Errorf("due %v amount %s", res.ZakatDue, res.AmountOwed)
	}
}

func TestZakatRoundsOnlyAtTheEnd(t *testing.T) {
	t.Parallel()
	req := pricedRequest()
	for i := range 100 {
		req.Holdings = append(req.Holdings, finance.ZakatHolding{Symbol: fmt.Sprintf("S%d", i), MarketValue: decp("100.005")})
	}
	res, err := (&finance.Zakat{}).Calculate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// Each holding is shown as 100.01 (100.005 half away from zero), but the total is 100 x 100.005 =
	// 10000.50 (rounding each first would give 10001.00) and the zakat 10000.50 x 0.025 = 250.0125 ->
	// 250.01 (from the rounded holdings: 10001.00 x 0.025 = 250.025 -> 250.03).
	wantDec(t, "holding market_value", *res.Holdings[0].MarketValue, "100.01")
	wantDec(t, "holdings_value", *res.HoldingsValue, "10000.50")
	wantDec(t, "zakatable_wealth", res.ZakatableWealth, "10000.50")
	wantDec(t, "amount_owed", res.AmountOwed, "250.01")
}

func TestZakatCashOnlyNoHoldings(t *testing.T) {
	t.Parallel()
	req := pricedRequest()
	req.Cash = amt("10000")
	res, err := (&finance.Zakat{}).Calculate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// 10000 > 8500.00: 10000 x 0.025 = 250.00
	wantDec(t, "amount_owed", res.AmountOwed, "250.00")
	wantDec(t, "holdings_value", *res.HoldingsValue, "0")
	wantDec(t, "total_portfolio_value", *res.TotalPortfolioValue, "10000")
	if !res.ZakatDue || res.Holdings == nil || len(res.Holdings) != 0 || res.Excluded == nil {
		t.Errorf("%+v", res)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"amount_owed":250`, `"zakat_due":true`, `"holdings":[]`, `"excluded":[]`, `"gold_price_per_gram":100`,
		`"silver_price_source":"request"`, `"nisab":{"metal":"gold","grams":85,"price_per_gram":100,"price_source":"request","threshold":8500`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("JSON lacks %s: %s", w, b)
		}
	}
}

func TestZakatIllustrativeDefaultsWithoutData(t *testing.T) {
	t.Parallel()
	// No store and no prices: the documented illustrative defaults, labelled as such.
	res, err := (&finance.Zakat{}).Calculate(context.Background(), finance.ZakatRequest{Cash: amt("20000")})
	if err != nil {
		t.Fatal(err)
	}
	wantDec(t, "gold_price_per_gram", res.GoldPricePerGram, finance.DefaultGoldPerGram.String())
	wantDec(t, "silver_price_per_gram", res.SilverPricePerGram, finance.DefaultSilverPerGram.String())
	if res.GoldPriceSource != "default (illustrative)" || res.SilverPriceSource != "default (illustrative)" || !res.Illustrative {
		t.Errorf("sources %q %q illustrative %v", res.GoldPriceSource, res.SilverPriceSource, res.Illustrative)
	}
	// nisab 85 x 130.00 = 11050.00 < 20000: 20000 x 0.025 = 500.00
	wantDec(t, "nisab.threshold", res.Nisab.Threshold, "11050")
	wantDec(t, "amount_owed", res.AmountOwed, "500")
}

func TestZakatRequestJSON(t *testing.T) {
	t.Parallel()
	var req finance.ZakatRequest
	body := `{"holdings":[{"symbol":"aapl","shares":10},{"symbol":"MSFT","market_value":"1500.25"}],"cash":100.10,"receivables":"5",
		"debts":1,"nisab_metal":"Silver","gold_price_per_gram":101.5,"silver_price_per_gram":1.25,"method":""}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	if req.Holdings[0].Symbol != "AAPL" || !req.Holdings[0].Shares.Equal(dec("10")) || !req.Holdings[1].MarketValue.Equal(dec("1500.25")) ||
		!req.Cash.Equal(dec("100.10")) || !req.Receivables.Equal(dec("5")) || !req.Debts.Equal(dec("1")) || req.NisabMetal != "silver" ||
		!req.GoldPricePerGram.Equal(dec("101.5")) || !req.SilverPricePerGram.Equal(dec("1.25")) || req.Method != "market_value" {
		t.Errorf("%+v", req)
	}
}

func TestZakatValidation(t *testing.T) {
	t.Parallel()
	shares := func(s string) finance.ZakatHolding { return finance.ZakatHolding{Symbol: "AAPL", Shares: decp(s)} }
	many := make([]finance.ZakatHolding, finance.MaxZakatHoldings+1)
	for i := range many {
		many[i] = shares("1")
	}
	cases := []struct {
		name string
		req  finance.ZakatRequest
		typ  string
		loc  []any
	}{
		{"negative cash", finance.ZakatRequest{Cash: amt("-0.01")}, "value_error.number.not_ge", []any{"body", "cash"}},
		{"negative receivables", finance.ZakatRequest{Receivables: amt("-1")}, "value_error.number.not_ge", []any{"body", "receivables"}},
		{"negative debts", finance.ZakatRequest{Debts: amt("-1")}, "value_error.number.not_ge", []any{"body", "debts"}},
		{"negative shares", finance.ZakatRequest{Holdings: []finance.ZakatHolding{shares("1"), shares("1"), shares("1"), shares("-2")}},
			"value_error.number.not_ge", []any{"body", "holdings", 3, "shares"}},
		{"negative market value", finance.ZakatRequest{Holdings: []finance.ZakatHolding{{Symbol: "AAPL", MarketValue: decp("-5")}}},
			"value_error.number.not_ge", []any{"body", "holdings", 0, "market_value"}},
		{"zero gold price", finance.ZakatRequest{GoldPricePerGram: decp("0")}, "value_error.number.not_gt", []any{"body", "gold_price_per_gram"}},
		{"negative silver price", finance.ZakatRequest{SilverPricePerGram: decp("-1")}, "value_error.number.not_gt", []any{"body", "silver_price_per_gram"}},
		{"unknown metal", finance.ZakatRequest{NisabMetal: "platinum"}, "value_error.enum", []any{"body", "nisab_metal"}},
		{"unknown method", finance.ZakatRequest{Method: "net_worth"}, "value_error.enum", []any{"body", "method"}},
		{"too many holdings", finance.ZakatRequest{Holdings: many}, "value_error.list.max_items", []any{"body", "holdings"}},
		{"shares and market value", finance.ZakatRequest{Holdings: []finance.ZakatHolding{{Symbol: "AAPL", Shares: decp("1"), MarketValue: decp("1")}}},
			"value_error.conflict", []any{"body", "holdings", 0}},
		{"neither shares nor market value", finance.ZakatRequest{Holdings: []finance.ZakatHolding{{Symbol: "AAPL"}}},
			"value_error.missing", []any{"body", "holdings", 0}},
		{"bad symbol", finance.ZakatRequest{Holdings: []finance.ZakatHolding{{Symbol: "not a symbol", Shares: decp("1")}}},
			"value_error.symbol", []any{"body", "holdings", 0, "symbol"}},
		{"market value with zakatable_assets", finance.ZakatRequest{Method: "zakatable_assets", Holdings: []finance.ZakatHolding{{Symbol: "AAPL", MarketValue: decp("1")}}},
			"value_error.conflict", []any{"body", "holdings", 0, "market_value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Calculate validates before any store read (a nil store would panic otherwise).
			_, err := (&finance.Zakat{}).Calculate(context.Background(), c.req)
			errs := fieldErrors(t, err)
			if !hasFieldError(errs, c.typ, c.loc...) {
				t.Errorf("want %s at %v, got %+v", c.typ, c.loc, errs)
			}
		})
	}
	t.Run("every problem at once", func(t *testing.T) {
		req := finance.ZakatRequest{Cash: amt("-1"), NisabMetal: "copper", Holdings: []finance.ZakatHolding{shares("-1")}}
		errs := fieldErrors(t, req.Validate())
		if len(errs) != 3 {
			t.Errorf("want 3 errors, got %+v", errs)
		}
	})
	t.Run("defaults", func(t *testing.T) {
		req := finance.ZakatRequest{Cash: amt("1")}
		if err := req.Validate(); err != nil || req.NisabMetal != "gold" || req.Method != "market_value" {
			t.Errorf("%v %q %q", err, req.NisabMetal, req.Method)
		}
		ok := finance.ZakatRequest{Holdings: many[:finance.MaxZakatHoldings]}
		if err := ok.Validate(); err != nil {
			t.Errorf("%d holdings: %v", finance.MaxZakatHoldings, err)
		}
	})
}

func TestZakatWithStore(t *testing.T) {
	t.Parallel()
	store, _ := startRefStore(t)
	ctx := context.Background()
	z := &finance.Zakat{Ref: store}
	q, ok, err := store.Quote(ctx, "AAPL")
	if err != nil || !ok {
		t.Fatalf("AAPL quote: %v %v", ok, err)
	}
	aaplPrice := decimal.New(int64(q.Price), -6)
	// custom records on the real store: an equity without prices, one with partial fundamentals
	if err := store.PutAssets(ctx, []shariah.Asset{
		{Symbol: "NOQT", Name: "No Quote Corp", Type: shariah.Equity, Currency: "USD"},
		{Symbol: "ZKT", Name: "Zakat Test Corp", Type: shariah.Equity, Currency: "USD"},
	}); err != nil {
		t.Fatal(err)
	}
	f := func(v string) shariah.Fact {
		return shariah.Fact{Value: shariah.NewNumber(dec(v)), Source: shariah.SourceFiling, Ref: "0000000000-26-000009"}
	}
	if err := store.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"ZKT": {
		// older period: would give (9000 + 0 + 0) / 100 = 90 per share if it were used
		{Symbol: "ZKT", PeriodEnd: "2024-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.CashAndSecurities: f("9000"), shariah.SharesOutstanding: f("100")}},
		{Symbol: "ZKT", PeriodEnd: "2025-12-31", Period: "FY", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.CashAndSecurities: f("1000"), shariah.Inventory: f("50"), shariah.SharesOutstanding: f("100")}},
	}}); err != nil {
		t.Fatal(err)
	}

	t.Run("shares valued at the quote", func(t *testing.T) {
		req := pricedRequest()
		req.Holdings = []finance.ZakatHolding{{Symbol: "aapl", Shares: decp("40")}}
		req.Cash = amt("0.5")
		res, err := z.Calculate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		h := res.Holdings[0]
		mv := aaplPrice.Mul(dec("40"))
		if h.Status != "ok" || h.Symbol != "AAPL" || h.Name != "Apple Inc." || h.PriceCurrency != "USD" || h.PriceAsOf != q.AsOf || h.PriceSource != q.Source {
			t.Fatalf("%+v", h)
		}
		wantDec(t, "price", *h.Price, aaplPrice.String())
		wantDec(t, "market_value", *h.MarketValue, mv.Round(2).String())
		wantDec(t, "holdings_value", *res.HoldingsValue, mv.Round(2).String())
		wealth := mv.Add(dec("0.5"))
		wantDec(t, "zakatable_wealth", res.ZakatableWealth, wealth.Round(2).String())
		if wealth.GreaterThan(dec("8500")) != res.ZakatDue {
			t.Errorf("due %v for wealth %s", res.ZakatDue, wealth)
		}
		if res.ZakatDue {
			wantDec(t, "amount_owed", res.AmountOwed, wealth.Mul(dec("0.025")).Round(2).String())
		}
		if res.Illustrative != (q.Source == shariah.SourceIllustrative) {
			t.Errorf("illustrative %v with a %s quote", res.Illustrative, q.Source)
		}
	})

	t.Run("unknown, unpriced and unconverted holdings are excluded", func(t *testing.T) {
		req := pricedRequest()
		req.Holdings = []finance.ZakatHolding{
			{Symbol: "AAPL", Shares: decp("1")},
			{Symbol: "ZZZZQ", Shares: decp("1000000")},
			{Symbol: "NOQT", Shares: decp("5")},
			{Symbol: "SAP.DE", Shares: decp("10")}, // EUR, and the default pack has no FX rates
			{Symbol: "X", MarketValue: decp("10")},
		}
		res, err := z.Calculate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"ok", "NOT_FOUND", "NO_PRICE", "NO_FX", "ok"}
		for i, h := range res.Holdings {
			if h.Status != want[i] {
				t.Errorf("%s: status %s, want %s (%s)", h.Symbol, h.Status, want[i], h.Message)
			}
			if h.Status != "ok" && (h.MarketValue != nil || h.Message == "") {
				t.Errorf("%s: excluded but valued %v / no message", h.Symbol, h.MarketValue)
			}
		}
		if !reflect.DeepEqual(res.Excluded, []string{"ZZZZQ", "NOQT", "SAP.DE"}) {
			t.Errorf("excluded %v", res.Excluded)
		}
		// only AAPL x 1 and the 10.00 given count
		wantDec(t, "holdings_value", *res.HoldingsValue, aaplPrice.Add(dec("10")).Round(2).String())
	})

	t.Run("zakatable_assets from stored fundamentals", func(t *testing.T) {
		fs, err := store.Fundamentals(ctx, "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		// the latest period with cash and shares, read from the store
		shariah.SortFundamentals(fs)
		var p *shariah.Fundamentals
		for i := range fs {
			if _, ok := fs[i].Facts[shariah.CashAndSecurities]; ok && fs[i].Facts[shariah.SharesOutstanding].Value.IsPositive() {
				p = &fs[i]
			}
		}
		if p == nil {
			t.Fatal("AAPL has no period with cash and shares in the default pack")
		}
		assets := p.Facts[shariah.CashAndSecurities].Value.Decimal.Add(p.Facts[shariah.Receivables].Value.Decimal).Add(p.Facts[shariah.Inventory].Value.Decimal)
		want := dec("40").Mul(assets).Div(p.Facts[shariah.SharesOutstanding].Value.Decimal)

		req := pricedRequest()
		req.Method = "zakatable_assets"
		req.Holdings = []finance.ZakatHolding{{Symbol: "AAPL", Shares: decp("40")}, {Symbol: "ZKT", Shares: decp("7")}, {Symbol: "NOQT", Shares: decp("1")}}
		res, err := z.Calculate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		a, zk, nq := res.Holdings[0], res.Holdings[1], res.Holdings[2]
		if a.Status != "ok" || !strings.Contains(a.Basis, p.PeriodEnd) {
			t.Fatalf("%+v", a)
		}
		wantDec(t, "AAPL zakatable_value", *a.ZakatableValue, want.Round(2).String())
		wantDec(t, "AAPL market_value", *a.MarketValue, aaplPrice.Mul(dec("40")).Round(2).String())
		// ZKT: latest period 2025-12-31: (1000 + 0 + 50) / 100 = 10.50 per share x 7 = 73.50; receivables
		// unreported (0, named); no price, so its market value is unknown
		if zk.Status != "ok" || !strings.Contains(zk.Basis, "2025-12-31") || !strings.Contains(zk.Basis, "counted as 0: receivables") || zk.MarketValue != nil {
			t.Fatalf("%+v", zk)
		}
		wantDec(t, "ZKT zakatable_value", *zk.ZakatableValue, "73.50")
		if nq.Status != "NO_FUNDAMENTALS" || nq.Message == "" {
			t.Errorf("%+v", nq)
		}
		// wealth = zakatable values (not market values); the market total is unknown (ZKT has no price)
		wantDec(t, "zakatable_wealth", res.ZakatableWealth, want.Add(dec("73.50")).Round(2).String())
		if res.HoldingsValue != nil || res.TotalPortfolioValue != nil {
			t.Errorf("holdings_value %v with an unpriced holding", res.HoldingsValue)
		}
		if !res.Illustrative { // the default pack's fundamentals are illustrative
			t.Error("illustrative fundamentals not flagged")
		}
	})

	t.Run("fx conversion", func(t *testing.T) {
		if err := store.PutFX(ctx, []market.FXRate{{Currency: "EUR", PerUSD: shariah.NewNumber(dec("0.8")), AsOf: "2026-10-30", Source: "test-fx"}}); err != nil {
			t.Fatal(err)
		}
		sq, ok, err := store.Quote(ctx, "SAP.DE")
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		req := pricedRequest()
		req.Holdings = []finance.ZakatHolding{{Symbol: "SAP.DE", Shares: decp("10")}}
		res, err := z.Calculate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		h := res.Holdings[0]
		// 10 x price EUR / 0.8 EUR per USD
		want := decimal.New(int64(sq.Price), -6).Mul(dec("10")).Div(dec("0.8"))
		if h.Status != "ok" || h.PriceCurrency != "EUR" || h.FXSource != "test-fx 2026-10-30" {
			t.Fatalf("%+v", h)
		}
		wantDec(t, "market_value", *h.MarketValue, want.Round(2).String())
	})

	t.Run("metal prices from data, else the illustrative default", func(t *testing.T) {
		req := finance.ZakatRequest{Cash: amt("1")}
		res, err := z.Calculate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.GoldPriceSource != "default (illustrative)" || res.SilverPriceSource != "default (illustrative)" || !res.Illustrative {
			t.Fatalf("default pack (no metals): %q %q %v", res.GoldPriceSource, res.SilverPriceSource, res.Illustrative)
		}
		// 3110.34768 USD per troy ounce / 31.1034768 g = 100.000000 USD/g; the older price is not used
		if err := store.PutMetals(ctx, []market.MetalPrice{
			{Metal: "gold", USDPerOunce: shariah.NewNumber(dec("3110.34768")), AsOf: "2026-10-30", Source: "test-metals"},
			{Metal: "gold", USDPerOunce: shariah.NewNumber(dec("1000")), AsOf: "2026-09-30", Source: "test-metals"},
		}); err != nil {
			t.Fatal(err)
		}
		req.SilverPricePerGram = decp("2.5")
		res, err = z.Calculate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		wantDec(t, "gold_price_per_gram", res.GoldPricePerGram, "100")
		wantDec(t, "silver_price_per_gram", res.SilverPricePerGram, "2.5")
		wantDec(t, "nisab.threshold", res.Nisab.Threshold, "8500")
		if res.GoldPriceSource != "data: test-metals 2026-10-30" || res.SilverPriceSource != "request" || res.Nisab.PriceSource != res.GoldPriceSource || res.Illustrative {
			t.Errorf("%q %q %q %v", res.GoldPriceSource, res.SilverPriceSource, res.Nisab.PriceSource, res.Illustrative)
		}
	})
}
