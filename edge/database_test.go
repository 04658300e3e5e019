package edge_test

import (
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
)

func TestDatabaseSearchAndSuggest(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, shariah.PlanPro))
	res := e.do(t, "GET", "/api/database/search?q=AAPL", nil, k).json(t)
	first := res["results"].([]any)[0].(map[string]any)
	if first["symbol"] != "AAPL" || first["matched_by"] != "symbol" {
		t.Fatalf("exact symbol not first: %v", first)
	}
	// name words, case-insensitive, any order of prefixes
	res = e.do(t, "GET", "/api/database/search?q=motor%20toy", nil, k).json(t)
	if res["total"] != 1.0 || res["results"].([]any)[0].(map[string]any)["symbol"] != "7203.T" {
		t.Fatalf("name search: %v", res)
	}
	// filters, asset types, pagination with a total
	res = e.do(t, "GET", "/api/database/search?country=united%20states&limit=5&offset=10", nil, k).json(t)
	if res["total"] != 14.0 || len(res["results"].([]any)) != 4 {
		t.Fatalf("US equities page: total %v, %d results", res["total"], len(res["results"].([]any)))
	}
	res = e.do(t, "GET", "/api/database/search?asset_type=etfs", nil, k).json(t)
	if res["total"] != 5.0 {
		t.Fatalf("etfs: %v", res["total"])
	}
	res = e.do(t, "GET", "/api/database/search?asset_type=all&q=s%26p", nil, k).json(t)
	if res["total"].(float64) < 2 {
		t.Fatalf("all types, S&P: %v", res)
	}
	for _, bad := range []string{"limit=0", "limit=501", "offset=-1", "asset_type=bonds", "limit=x", "q=" + strings.Repeat("a", 101)} {
		if r := e.do(t, "GET", "/api/database/search?"+bad, nil, k); r.StatusCode != 422 {
			t.Errorf("%s: %d", bad, r.StatusCode)
		}
	}
	sug := e.do(t, "GET", "/api/suggest?q=ms", nil, k)
	list := sug.json2(t).([]any)
	if len(list) == 0 || list[0].(map[string]any)["symbol"] != "MSFT" || sug.Header.Get("X-Tokens-Charged") != "1" {
		t.Fatalf("suggest ms: %s", sug.body)
	}
	list = e.do(t, "GET", "/api/suggest?q=sau&limit=3", nil, k).json2(t).([]any)
	if len(list) != 1 || list[0].(map[string]any)["symbol"] != "2222.SR" {
		t.Fatalf("suggest by name: %v", list)
	}
	if l := e.do(t, "GET", "/api/suggest", nil, k).json2(t).([]any); len(l) != 0 {
		t.Fatalf("empty query: %v", l)
	}
}
