package edge_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/filings"
)

func TestNewsRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	arts := []filings.Article{
		{ID: "a1", Title: "Apple beats estimates", URL: "https://news.example.com/a1", Source: "example", Published: now.Add(-time.Hour),
			Symbols: []string{"AAPL"}, Category: "earnings", ComplianceRelevance: "medium", Sentiment: 0.6, SentimentLabel: "bullish"},
		{ID: "a2", Title: "Microsoft issues bonds", URL: "https://news.example.com/a2", Source: "example", Published: now.Add(-2 * time.Hour),
			Symbols: []string{"MSFT"}, Category: "debt", ComplianceRelevance: "high", Sentiment: 0, SentimentLabel: "neutral"},
	}
	for i := range arts {
		arts[i].TitleKey = arts[i].Title
	}
	if _, err := e.news.PutArticles(ctx, arts); err != nil {
		t.Fatal(err)
	}
	if err := e.ingest.PutHealth(ctx, filings.SourceHealth{Name: "news:example", Status: "ok", LastRunAt: &now, LastSuccessAt: &now, Items: 2}); err != nil {
		t.Fatal(err)
	}
	k := key(e.newKey(t, account.PlanPro))

	r := e.do(t, "GET", "/api/news", nil, k)
	m := r.json(t)
	if r.StatusCode != 200 || m["total"].(float64) != 2 || m["articles"].([]any)[0].(map[string]any)["id"] != "a1" {
		t.Fatalf("news, newest first: %s", r.body)
	}
	r = e.do(t, "GET", "/api/news?compliance_relevance=high", nil, k)
	if m = r.json(t); m["total"].(float64) != 1 {
		t.Fatalf("relevance filter: %s", r.body)
	}
	r = e.do(t, "GET", "/api/news?symbol=msft&page_size=1", nil, k)
	if m = r.json(t); m["total"].(float64) != 1 || m["articles"].([]any)[0].(map[string]any)["id"] != "a2" {
		t.Fatalf("symbol filter: %s", r.body)
	}
	for _, bad := range []string{"?compliance_relevance=urgent", "?page=0", "?page_size=101", "?symbol=%24%24%24"} {
		if r = e.do(t, "GET", "/api/news"+bad, nil, k); r.StatusCode != 422 {
			t.Fatalf("%s: %d", bad, r.StatusCode)
		}
	}
	r = e.do(t, "GET", "/api/news/AAPL", nil, k)
	if m = r.json(t); m["total"].(float64) != 1 {
		t.Fatalf("symbol news: %s", r.body)
	}
	if r = e.do(t, "GET", "/api/news/NOPE123", nil, k); r.StatusCode != 404 {
		t.Fatalf("unknown symbol news: %d", r.StatusCode)
	}
	r = e.do(t, "GET", "/api/news/sources", nil, k)
	srcs := r.json(t)["sources"].([]any)
	if len(srcs) != 2 || srcs[1].(map[string]any)["health"] == nil || srcs[0].(map[string]any)["health"] != nil {
		t.Fatalf("sources with health: %s", r.body)
	}
	// News costs a light read: 1 token; a 422 keeps no charge.
	if r = e.do(t, "GET", "/api/news", nil, k); r.Header.Get("X-Tokens-Charged") != "1" {
		t.Fatalf("news charged %q", r.Header.Get("X-Tokens-Charged"))
	}
	if r = e.do(t, "GET", "/api/news?page=0", nil, k); r.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("a 422 charged %q", r.Header.Get("X-Tokens-Charged"))
	}
	if r = e.do(t, "GET", "/api/news", nil, hdr{}); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no key: %d", r.StatusCode)
	}
}
