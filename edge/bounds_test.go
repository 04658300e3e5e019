package edge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/sukuk"
)

// fieldError finds the field error at loc (written as "body.holdings.0.shares") in a 422 body; it
// returns its type, or "" when there is none.
func (r response) fieldError(t *testing.T, loc string) string {
	t.Helper()
	d, _ := r.json(t)["detail"].(map[string]any)
	errs, _ := d["errors"].([]any)
	for _, e := range errs {
		e := e.(map[string]any)
		var parts []string
		for _, l := range e["loc"].([]any) {
			parts = append(parts, fmt.Sprint(l))
		}
		if strings.Join(parts, ".") == loc {
			return e["type"].(string)
		}
	}
	return ""
}

// TestAmountBoundsOverHTTP: every money and share input of the REST routes (zakat, purification, ETF
// purification, sukuk impact, the dividend purification's shares) refuses 1e9999, NaN, Infinity,
// negative values, values above the ceiling and values with more than 18 decimal places with a 422
// naming the field (the responses are checked against openapi.yaml by e.do).
func TestAmountBoundsOverHTTP(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	for _, c := range []struct {
		method, path, body string
		loc, typ           string
	}{
		{"POST", "/api/zakat/calculate", `{"cash":1e9999}`, "body.cash", "value_error.number.not_le"},
		{"POST", "/api/zakat/calculate", `{"cash":"NaN"}`, "body.cash", "type_error"},
		{"POST", "/api/zakat/calculate", `{"cash":"Infinity"}`, "body.cash", "type_error"},
		{"POST", "/api/zakat/calculate", `{"receivables":"-Infinity"}`, "body.receivables", "type_error"},
		{"POST", "/api/zakat/calculate", `{"debts":"1e99999999999"}`, "body.debts", "type_error"},
		{"POST", "/api/zakat/calculate", `{"cash":1000000000000000.01}`, "body.cash", "value_error.number.not_le"},
		{"POST", "/api/zakat/calculate", `{"debts":-0.01}`, "body.debts", "value_error.number.not_ge"},
		{"POST", "/api/zakat/calculate", `{"gold_price_per_gram":1e9999}`, "body.gold_price_per_gram", "value_error.number.not_le"},
		{"POST", "/api/zakat/calculate", `{"holdings":[{"symbol":"AAPL","market_value":1e9999}]}`, "body.holdings.0.market_value", "value_error.number.not_le"},
		{"POST", "/api/zakat/calculate", `{"holdings":[{"symbol":"AAPL","market_value":"NaN"}]}`, "body.holdings.0.market_value", "type_error"},
		{"POST", "/api/zakat/calculate", `{"holdings":[{"symbol":"AAPL","shares":1},{"symbol":"AAPL","shares":2e15}]}`, "body.holdings.1.shares", "value_error.number.not_le"},
		{"POST", "/api/zakat/calculate", `{"holdings":[{"symbol":"AAPL","shares":1e-9999}]}`, "body.holdings.0.shares", "value_error.number.max_places"},
		{"POST", "/api/zakat/calculate", `{"holdings":[{"symbol":"AAPL","shares":-1}]}`, "body.holdings.0.shares", "value_error.number.not_ge"},
		{"POST", "/api/purification/calculate", `{"holdings":[{"symbol":"AAPL","dividend_income":1e9999}]}`, "body.holdings.0.dividend_income", "value_error.number.not_le"},
		{"POST", "/api/purification/calculate", `{"holdings":[{"symbol":"AAPL","shares":"Infinity"}]}`, "body.holdings.0.shares", "type_error"},
		{"POST", "/api/purification/calculate", `{"holdings":[{"symbol":"AAPL","shares":1000000000000001}]}`, "body.holdings.0.shares", "value_error.number.not_le"},
		{"POST", "/api/etf/SPUS/purification", `{"investment_amount":1e9999}`, "body.investment_amount", "value_error.number.not_le"},
		{"POST", "/api/etf/SPUS/purification", `{"investment_amount":"NaN"}`, "body.investment_amount", "type_error"},
		{"POST", "/api/etf/SPUS/purification", `{"investment_amount":10,"dividend_income":1e16}`, "body.dividend_income", "value_error.number.not_le"},
		{"POST", "/api/etf/SPUS/purification", `{"investment_amount":-10}`, "body.investment_amount", "value_error.number.not_gt"},
		{"POST", "/api/sukuk/portfolio-impact", `{"holdings":[{"isin":"US0378331005","nominal":1e9999}]}`, "body.holdings.0.nominal", "value_error.number.not_le"},
		{"POST", "/api/sukuk/portfolio-impact", `{"holdings":[{"isin":"US0378331005","market_value":"NaN"}]}`, "body.holdings.0.market_value", "type_error"},
		{"GET", "/api/dividends/AAPL/purification?shares=1e9999", "", "query.shares", "value_error.number.not_le"},
		{"GET", "/api/dividends/AAPL/purification?shares=NaN", "", "query.shares", "value_error.number"},
		{"GET", "/api/dividends/AAPL/purification?shares=Infinity", "", "query.shares", "value_error.number"},
		{"GET", "/api/dividends/AAPL/purification?shares=1e-9999", "", "query.shares", "value_error.number.max_places"},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		r := e.do(t, c.method, c.path, body, k)
		if r.StatusCode != 422 {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, c.body, r.StatusCode, r.body)
			continue
		}
		if got := r.fieldError(t, c.loc); got != c.typ {
			t.Errorf("%s %s %s: want %s at %s, got %q in %s", c.method, c.path, c.body, c.typ, c.loc, got, r.body)
		}
	}
	// The ceiling itself and a float's digits are accepted.
	for _, body := range []string{`{"cash":1000000000000000,"gold_price_per_gram":100}`, `{"cash":0.30000000000000004}`,
		`{"holdings":[{"symbol":"AAPL","shares":999999999999999.999999999999999999}]}`} {
		if r := e.do(t, "POST", "/api/zakat/calculate", body, k); r.StatusCode != 200 {
			t.Errorf("%s: %d %s", body, r.StatusCode, r.body)
		}
	}
	if r := e.do(t, "GET", "/api/dividends/AAPL/purification?shares=1000000000000000", nil, k); r.StatusCode != 200 {
		t.Errorf("shares at the ceiling: %d %s", r.StatusCode, r.body)
	}
}

// TestItemCountsOverHTTP: every batch route has a documented maximum (maxItems in openapi.yaml), and
// one more item is a 422 naming the list.
func TestItemCountsOverHTTP(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	repeat := func(n int, item string) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	for _, c := range []struct {
		path, body, loc string
		max             int
	}{
		{"/api/zakat/calculate", `{"holdings":[` + repeat(finance.MaxZakatHoldings+1, `{"symbol":"AAPL","market_value":1}`) + `]}`, "body.holdings", 100},
		{"/api/purification/calculate", `{"holdings":[` + repeat(finance.MaxPurificationHoldings+1, `{"symbol":"AAPL","dividend_income":1}`) + `]}`, "body.holdings", 100},
		{"/api/sukuk/portfolio-impact", `{"holdings":[` + repeat(sukuk.MaxHoldings+1, `{"isin":"US0378331005","nominal":1}`) + `]}`, "body.holdings", 200},
		{"/api/portfolio/scan", `{"symbols":[` + repeat(101, `"AAPL"`) + `]}`, "body.symbols", 100},
		{"/api/reports/portfolio", `{"symbols":[` + repeat(101, `"AAPL"`) + `]}`, "body.symbols", 100},
		{"/api/etf/screen-bulk", `{"symbols":[` + repeat(101, `"SPUS"`) + `]}`, "body.symbols", 100},
		{"/api/quotes/batch", `{"symbols":[` + repeat(51, `"AAPL"`) + `]}`, "body.symbols", 50},
		{"/api/watchlists", `{"name":"big","symbols":[` + repeat(account.MaxWatchlistSymbols+1, `"AAPL"`) + `]}`, "body.symbols", 200},
	} {
		r := e.do(t, "POST", c.path, c.body, k)
		if r.StatusCode != 422 || r.fieldError(t, c.loc) == "" {
			t.Errorf("%s with %d items: %d %.300s", c.path, c.max+1, r.StatusCode, r.body)
		}
		// The maximum is the one the document states.
		op := spec.Paths.Find(c.path).Post
		sch := op.RequestBody.Value.Content.Get("application/json").Schema.Value
		list := sch.Properties[strings.TrimPrefix(c.loc, "body.")].Value
		if list.MaxItems == nil || int(*list.MaxItems) != c.max {
			t.Errorf("%s: openapi.yaml states maxItems %v, the route allows %d", c.path, list.MaxItems, c.max)
		}
	}
}

// TestZakatResponseProportionate: the 3.5 KB request that answered 3.1 MB (100 holdings of 1e9999) is
// a 422 of about its own size, and the largest request the bounds allow answers a bounded multiple of
// its size (a fixed part, disclaimers and notes, plus a few dozen digits per figure).
func TestZakatResponseProportionate(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	holdings := func(item string) string {
		return `{"gold_price_per_gram":100,"holdings":[` + strings.TrimSuffix(strings.Repeat(item+",", finance.MaxZakatHoldings), ",") + `]}`
	}
	attack := holdings(`{"symbol":"A","market_value":1e9999}`)
	r := e.do(t, "POST", "/api/zakat/calculate", attack, k)
	if r.StatusCode != 422 || len(r.body) > 4*len(attack) {
		t.Errorf("%d-byte request of 1e9999s: %d, %d bytes", len(attack), r.StatusCode, len(r.body))
	}
	for _, item := range []string{
		`{"symbol":"A","market_value":999999999999999.999999999999999999}`,
		`{"symbol":"AAPL","shares":999999999999999.999999999999999999}`,
		`{"symbol":"AAPL","shares":1}`,
	} {
		for _, method := range []string{"market_value", "zakatable_assets"} {
			body := strings.Replace(holdings(item), "{", `{"method":"`+method+`","cash":"999999999999999.999999999999999999",`, 1)
			if method == "zakatable_assets" && strings.Contains(item, "market_value") {
				continue // refused: that method values shares
			}
			r := e.do(t, "POST", "/api/zakat/calculate", body, k)
			if r.StatusCode != 200 {
				t.Fatalf("%s: %d %.300s", item, r.StatusCode, r.body)
			}
			if limit := 20*len(body) + 16<<10; len(r.body) > limit {
				t.Errorf("%s (%s): %d-byte request answered %d bytes (limit %d)", item, method, len(body), len(r.body), limit)
			}
			t.Logf("%s (%s): request %d bytes, response %d (%.1fx)", item, method, len(body), len(r.body), float64(len(r.body))/float64(len(body)))
		}
	}
}

// TestWatchlistNamesRefuseControlAndBidi: a name with NUL, an escape sequence or a bidi override is a
// 422 naming the field, and nothing is stored (the same domain check serves MCP).
func TestWatchlistNamesRefuseControlAndBidi(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	for _, name := range []string{"a\x00b", "\u202egnp.exe", "red\x1b[31m", "x\u2066y\u2069", "del\x7f", "c1\u009b", "rlm\u200fx"} {
		r := e.do(t, "POST", "/api/watchlists", map[string]any{"name": name}, k)
		if r.StatusCode != 422 || r.fieldError(t, "body.name") != "value_error.str.forbidden_character" {
			t.Errorf("%q: %d %s", name, r.StatusCode, r.body)
		}
	}
	if list, _ := e.do(t, "GET", "/api/watchlists", nil, k).json2(t).([]any); len(list) != 0 {
		t.Errorf("refused names were stored: %v", list)
	}
	r := e.do(t, "POST", "/api/watchlists", map[string]any{"name": "  محفظتي الحلال  "}, k)
	if r.StatusCode != 200 || r.json(t)["name"] != "محفظتي الحلال" {
		t.Errorf("an Arabic name: %d %s", r.StatusCode, r.body)
	}
}
