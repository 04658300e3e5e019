package edge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah/account"
)

func dec(t *testing.T, v any) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(strings.TrimSpace(strings.Trim(string(mustJSON(v)), `"`)))
	if err != nil {
		t.Fatalf("not a number: %v", v)
	}
	return d
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestZakatOverHTTP(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	q, ok, err := e.ref.Quote(context.Background(), "AAPL")
	if err != nil || !ok {
		t.Fatal("no AAPL quote", err)
	}
	body := `{"holdings":[{"symbol":"aapl","shares":10},{"symbol":"NOPE123","shares":5},{"symbol":"MSFT","market_value":1000.50}],
		"cash":2000,"receivables":100,"debts":300.25,"nisab_metal":"gold","gold_price_per_gram":100}`
	r := e.do(t, "POST", "/api/zakat/calculate", body, k)
	if r.StatusCode != 200 {
		t.Fatalf("zakat: %d %s", r.StatusCode, r.body)
	}
	m := r.json(t)
	wealth := decimal.RequireFromString(q.Price.String()).Mul(decimal.NewFromInt(10)).Add(decimal.RequireFromString("1000.50")).Add(decimal.NewFromInt(2100)).Sub(decimal.RequireFromString("300.25"))
	if got := dec(t, m["zakatable_wealth"]); !got.Equal(wealth.Round(2)) {
		t.Fatalf("wealth %s, want %s: %s", got, wealth, r.body)
	}
	due := wealth.GreaterThan(decimal.NewFromInt(8500))
	if m["zakat_due"] != due {
		t.Fatalf("zakat_due %v for wealth %s over a nisab of 8500", m["zakat_due"], wealth)
	}
	want := decimal.Zero
	if due {
		want = wealth.Mul(decimal.RequireFromString("0.025")).Round(2)
	}
	if got := dec(t, m["amount_owed"]); !got.Equal(want) {
		t.Fatalf("amount owed %s, want %s", got, want)
	}
	if ex := m["excluded"].([]any); len(ex) != 1 || ex[0] != "NOPE123" || m["holdings"].([]any)[1].(map[string]any)["status"] != "NOT_FOUND" {
		t.Fatalf("unknown symbol: %s", r.body)
	}
	if m["gold_price_source"] != "request" || len(m["skipped"].([]any)) == 0 {
		t.Fatalf("stated prices and skipped items: %s", r.body)
	}
	// Cash alone, no holdings, is a valid request; the metal prices are stated with their source.
	r = e.do(t, "POST", "/api/zakat/calculate", map[string]any{"cash": 100000, "nisab_metal": "silver"}, k)
	if m = r.json(t); r.StatusCode != 200 || m["zakat_due"] != true || m["silver_price_source"] == "" {
		t.Fatalf("cash only: %d %s", r.StatusCode, r.body)
	}
	for _, bad := range []string{`{"cash":-1}`, `{"nisab_metal":"platinum"}`, `{"method":"guess"}`, `{"holdings":[{"symbol":"AAPL","shares":-3}]}`,
		`{"holdings":[{"symbol":"AAPL","shares":1,"market_value":5}]}`, `{"gold_price_per_gram":0}`} {
		if r = e.do(t, "POST", "/api/zakat/calculate", bad, k); r.StatusCode != 422 {
			t.Fatalf("%s: %d %s", bad, r.StatusCode, r.body)
		}
	}
	if r = e.do(t, "POST", "/api/zakat/calculate", `{"cash":`, k); r.StatusCode != 400 {
		t.Fatalf("unparseable body: %d", r.StatusCode)
	}
}

func TestPurificationOverHTTP(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "GET", "/api/dividends/AAPL/purification-rate", nil, k)
	// purification_rate is in percent; the calculator multiplies by the fraction (never 100x).
	rate := dec(t, r.json(t)["purification_rate_fraction"])
	if pct := dec(t, r.json(t)["purification_rate"]); !pct.Equal(rate.Mul(decimal.NewFromInt(100))) {
		t.Fatalf("purification_rate %s is not 100 x the fraction %s", pct, rate)
	}
	r = e.do(t, "POST", "/api/purification/calculate", map[string]any{"holdings": []any{
		map[string]any{"symbol": "AAPL", "dividend_income": 1234.56}, map[string]any{"symbol": "NOPE123", "dividend_income": 10}}}, k)
	if r.StatusCode != 200 {
		t.Fatalf("purification: %d %s", r.StatusCode, r.body)
	}
	m := r.json(t)
	want := decimal.RequireFromString("1234.56").Mul(rate).Round(2)
	if got := dec(t, m["total_amount"]); !got.Equal(want) {
		t.Fatalf("total %s, want 1234.56 x %s = %s", got, rate, want)
	}
	if ex := m["excluded"].([]any); len(ex) != 1 || ex[0] != "NOPE123" {
		t.Fatalf("excluded: %s", r.body)
	}
	// Each holding: rate is the fraction the amount multiplies, purification_rate the same in percent,
	// both equal to the stock's own purification_rate_fraction and purification_rate.
	h := m["holdings"].([]any)[0].(map[string]any)
	if hr, hp := dec(t, h["rate"]), dec(t, h["purification_rate"]); !hr.Equal(rate) || !hp.Equal(rate.Mul(decimal.NewFromInt(100))) {
		t.Fatalf("holding rate %s, purification_rate %s; the stock's fraction %s", hr, hp, rate)
	}
	r = e.do(t, "POST", "/api/purification/calculate", map[string]any{"method": "aaoifi", "holdings": []any{map[string]any{"symbol": "AAPL", "shares": 100}}}, k)
	if m = r.json(t); r.StatusCode != 200 || m["method"] != "aaoifi" {
		t.Fatalf("aaoifi: %d %s", r.StatusCode, r.body)
	}
	for _, bad := range []string{`{}`, `{"holdings":[]}`, `{"holdings":[{"symbol":"AAPL","dividend_income":-5}]}`, `{"method":"x","holdings":[{"symbol":"AAPL","shares":1}]}`} {
		if r = e.do(t, "POST", "/api/purification/calculate", bad, k); r.StatusCode != 422 {
			t.Fatalf("%s: %d %s", bad, r.StatusCode, r.body)
		}
	}
}
