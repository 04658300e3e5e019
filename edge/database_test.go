package edge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/catalog"
)

func TestDatabaseSearchAndSuggest(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
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

// TestSearchAndSuggestBodiesFollowTheCatalog: search and suggest answer with the bytes an encoding of the
// catalog's own answer gives (the fields of the map the handler used to encode, in its order), the same
// bytes again for the same query, and the new catalog's answer once the reference data changes.
func TestSearchAndSuggestBodiesFollowTheCatalog(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	ctx := context.Background()
	k := key(e.newKey(t, account.PlanPro))
	want := func(q catalog.SearchQuery) []byte {
		t.Helper()
		cat, err := (&catalog.Cache{Store: e.ref}).Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		hits, total := cat.Search(q)
		b, err := json.Marshal(map[string]any{"total": total, "limit": q.Limit, "offset": q.Offset, "results": hits})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	path := "/api/database/search?q=%20a%20&limit=3&offset=1"
	q := catalog.SearchQuery{Q: "a", Type: shariah.Equity, Limit: 3, Offset: 1}
	first := e.do(t, "GET", path, nil, k)
	if first.StatusCode != 200 || !bytes.Equal(first.body, want(q)) {
		t.Fatalf("search body:\n got %s\nwant %s", first.body, want(q))
	}
	if again := e.do(t, "GET", path, nil, k); !bytes.Equal(again.body, first.body) || again.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Fatalf("memoised body differs:\n%s\n%s", again.body, first.body)
	}
	sug := e.do(t, "GET", "/api/suggest?q=zq", nil, k)
	if string(sug.body) != "[]" {
		t.Fatalf("suggest zq before the data changed: %s", sug.body)
	}

	if err := e.ref.PutAssets(ctx, []shariah.Asset{{Symbol: "AAAZQ", Name: "Aardvark Zq Holdings", Type: shariah.Equity,
		Exchange: "NYSE", Country: "United States", Sector: "Industrials"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ref.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	e.awaitData(t)
	if got := e.do(t, "GET", path, nil, k); !bytes.Equal(got.body, want(q)) || bytes.Equal(got.body, first.body) {
		t.Fatalf("search after the data changed:\n got %s\nwant %s", got.body, want(q))
	}
	list := e.do(t, "GET", "/api/suggest?q=zq", nil, k).json2(t).([]any)
	if len(list) != 1 || list[0].(map[string]any)["symbol"] != "AAAZQ" {
		t.Fatalf("suggest zq after the data changed: %v", list)
	}
}
