package edge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/agent"
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
	e := setup(t, options{})
	k := key(e.newKey(t, shariah.PlanPro))
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
	e := setup(t, options{})
	k := key(e.newKey(t, shariah.PlanPro))
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

func TestTerminalAgent(t *testing.T) {
	var asked string
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var in struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		asked = in.Messages[len(in.Messages)-1].Content
		w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"screen MSFT"},"finish_reason":"stop"}]}`))
	}))
	defer llm.Close()
	e := setup(t, options{agentLLM: &agent.LLM{BaseURL: llm.URL + "/v1", Model: "test", APIKey: "sk-test-secret"}})
	k := key(e.newKey(t, shariah.PlanPro))
	ask := func(cmd string) map[string]any {
		t.Helper()
		r := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": cmd}, k)
		if r.StatusCode != 200 {
			t.Fatalf("%q: %d %s", cmd, r.StatusCode, r.body)
		}
		if strings.Contains(string(r.body), "sk-test-secret") {
			t.Fatal("the model's key leaked into a response")
		}
		return r.json(t)
	}
	calls := func(m map[string]any) []map[string]any {
		var out []map[string]any
		for _, c := range m["tool_calls"].([]any) {
			out = append(out, c.(map[string]any))
		}
		return out
	}

	m := ask("screen AAPL")
	cs := calls(m)
	direct := e.do(t, "GET", "/api/screen/AAPL", nil, k).json(t)
	if m["mode"] != "rules" || len(cs) != 1 || cs[0]["tool"] != "screen_stock" ||
		cs[0]["result"].(map[string]any)["compliance_status"] != direct["compliance_status"] {
		t.Fatalf("screen AAPL: %v", m)
	}
	m = ask("compare MSFT GOOGL")
	if cs = calls(m); len(cs) != 2 || cs[1]["arguments"].(map[string]any)["symbol"] != "GOOGL" {
		t.Fatalf("compare: %v", m)
	}
	m = ask("is NVDA halal under djim")
	if cs = calls(m); len(cs) != 1 || cs[0]["arguments"].(map[string]any)["methodology"] != "djim" || m["intent"] != "screen" {
		t.Fatalf("is NVDA halal under djim: %v", m)
	}
	m = ask("zakat on 10 AAPL and 2000 cash")
	cs = calls(m)
	if len(cs) != 1 || cs[0]["tool"] != "calculate_zakat" {
		t.Fatalf("zakat: %v", m)
	}
	res := cs[0]["result"].(map[string]any)
	if dec(t, res["cash"]).String() != "2000" || len(res["holdings"].([]any)) != 1 || !strings.Contains(m["answer"].(string), "zakat") && !strings.Contains(m["answer"].(string), "Zakat") {
		t.Fatalf("zakat result: %v", m)
	}
	// Outside the grammar, the configured model rewrites the question; what runs is a known tool.
	m = ask("what do you think about microsoft?")
	if m["mode"] != "llm" || m["command"] != "screen MSFT" || asked != "what do you think about microsoft?" || calls(m)[0]["tool"] != "screen_stock" {
		t.Fatalf("llm rewrite: %v", m)
	}
	// An unknown symbol is a tool error in the answer, not a failed request.
	m = ask("screen $NOPE123")
	if m["intent"] != "screen" || !strings.Contains(m["answer"].(string), "NOPE123") {
		t.Fatalf("unknown symbol: %v", m)
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"command": strings.Repeat("x", 501)}, map[string]any{"command": 5}} {
		if r := e.do(t, "POST", "/api/terminal/agent", bad, k); r.StatusCode != 422 {
			t.Fatalf("%v: %d", bad, r.StatusCode)
		}
	}
}

func TestTerminalAgentIsDeterministicWithoutAModel(t *testing.T) {
	e := setup(t, options{})
	k := key(e.newKey(t, shariah.PlanPro))
	r1 := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": "what do you think about microsoft?"}, k).json(t)
	if r1["mode"] != "rules" || r1["intent"] != "unknown" || len(r1["tool_calls"].([]any)) != 0 {
		t.Fatalf("no model: %v", r1)
	}
	a := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": "quote MSFT"}, k).json(t)
	b := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": "quote MSFT"}, k).json(t)
	if a["answer"] != b["answer"] || a["answer"] == "" {
		t.Fatalf("same command, different answers: %v / %v", a["answer"], b["answer"])
	}
}

func TestCashflowInsight(t *testing.T) {
	e := setup(t, options{})
	ingestEXA(t, e)
	k := key(e.newKey(t, shariah.PlanPro))
	r := e.do(t, "GET", "/api/insights/EXA/cashflow", nil, k)
	if m := r.json(t); r.StatusCode != 200 || m["available"] != false || m["reason"] == "" {
		t.Fatalf("no cash-flow facts: %d %s", r.StatusCode, r.body)
	}
	ctx := context.Background()
	facts, _ := e.ingest.Facts(ctx, "EXA")
	add := func(concept, start, end string, v int64, acc string) {
		facts = append(facts, shariah.XBRLFact{Concept: "us-gaap:" + concept, Unit: "USD", Start: start, End: end,
			Value: shariah.NewNumber(decimal.NewFromInt(v)), Accession: acc, Form: "10-K", Filed: end[:4] + "-11-01"})
	}
	add("NetCashProvidedByUsedInOperatingActivities", "2023-01-01", "2023-12-31", 1000, "0001234567-24-000001")
	add("PaymentsToAcquirePropertyPlantAndEquipment", "2023-01-01", "2023-12-31", 300, "0001234567-24-000001")
	add("NetCashProvidedByUsedInOperatingActivities", "2024-01-01", "2024-12-31", 1500, "0001234567-25-000005")
	add("PaymentsToAcquirePropertyPlantAndEquipment", "2024-01-01", "2024-12-31", 400, "0001234567-25-000005")
	if err := e.ingest.PutFacts(ctx, "EXA", facts); err != nil {
		t.Fatal(err)
	}
	r = e.do(t, "GET", "/api/insights/EXA/cashflow", nil, k)
	m := r.json(t)
	years := m["years"].([]any)
	if m["available"] != true || len(years) != 2 || m["trend"] != "improving" {
		t.Fatalf("cash flow: %s", r.body)
	}
	last := years[1].(map[string]any)
	if dec(t, last["free_cash_flow"]).String() != "1100" || last["sources"].(map[string]any)["operating_cash_flow"].(map[string]any)["accession_number"] != "0001234567-25-000005" {
		t.Fatalf("FY2024: %v", last)
	}
	if r = e.do(t, "GET", "/api/insights/NOPE123/cashflow", nil, k); r.StatusCode != 404 {
		t.Fatalf("unknown symbol: %d", r.StatusCode)
	}
}
