package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest/news"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestNewsStoreDeduplicatesAcrossSources stores the same story from two feeds (once under a URL that
// differs only by tracking parameters, once under another URL with the same title) and checks that it is
// kept once, with both sources and every symbol, dated by its earliest publication; then the filters.
func TestNewsStoreDeduplicatesAcrossSources(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	ctx := context.Background()
	if err := b.client.Do(ctx, b.client.B().Flushall().Build()).Error(); err != nil {
		t.Fatal(err)
	}
	st := sredis.NewNewsStore(b.client)
	t0 := time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)
	art := func(title, url, source string, at time.Time, syms ...string) filings.Article {
		a := filings.Article{ID: news.ArticleID(url), Title: title, URL: url, Source: source, Published: at, Symbols: syms,
			TitleKey: news.NormalizeTitle(title)}
		news.Enrich(&a, nil)
		return a
	}
	n, err := st.PutArticles(ctx, []filings.Article{
		art("Apple prices $5 billion bond offering", "https://news.example.com/apple-bonds?utm_source=rss", "wire-a", t0.Add(time.Hour), "AAPL"),
		art("Tesla deliveries beat estimates", "https://news.example.com/tesla", "wire-a", t0, "TSLA"),
	})
	if err != nil || n != 2 {
		t.Fatalf("first feed: %d new, %v", n, err)
	}
	n, err = st.PutArticles(ctx, []filings.Article{
		art("Apple prices $5 billion bond offering", "https://www.news.example.com/apple-bonds", "wire-b", t0, "AAPL"),              // same URL, normalised
		art("Apple Prices $5 Billion Bond Offering!", "https://other.example.org/story/123", "wire-c", t0.Add(2*time.Hour), "MSFT"), // same title
	})
	if err != nil || n != 0 {
		t.Fatalf("second feeds: %d new, %v", n, err)
	}
	all, total, err := st.News(ctx, filings.NewsQuery{Limit: 10})
	if err != nil || total != 2 {
		t.Fatalf("stored %d articles: %v", total, err)
	}
	apple := all[0]
	if all[1].Title == "Apple prices $5 billion bond offering" {
		apple = all[1]
	}
	if len(apple.Sources) != 3 || len(apple.Symbols) != 2 || !apple.Published.Equal(t0) || apple.Source != "wire-a" {
		t.Fatalf("merged story: %+v", apple)
	}
	if apple.ComplianceRelevance != "high" {
		t.Fatalf("bond offering relevance %q (%s)", apple.ComplianceRelevance, apple.RelevanceReason)
	}
	for _, c := range []struct {
		q    filings.NewsQuery
		want int
	}{
		{filings.NewsQuery{Source: "wire-c"}, 1},
		{filings.NewsQuery{Symbol: "MSFT"}, 1},
		{filings.NewsQuery{Symbol: "TSLA"}, 1},
		{filings.NewsQuery{Q: "DELIVERIES"}, 1},
		{filings.NewsQuery{Relevance: "high"}, 1},
		{filings.NewsQuery{Category: "debt"}, 1},
		{filings.NewsQuery{Source: "nobody"}, 0},
	} {
		c.q.Limit = 10
		if _, got, err := st.News(ctx, c.q); err != nil || got != c.want {
			t.Errorf("%+v: %d articles, want %d (%v)", c.q, got, c.want, err)
		}
	}
	// Unfiltered pages read only the page: two pages of one hold the two stories.
	p1, total1, _ := st.News(ctx, filings.NewsQuery{Offset: 0, Limit: 1})
	p2, total2, _ := st.News(ctx, filings.NewsQuery{Offset: 1, Limit: 1})
	if len(p1) != 1 || len(p2) != 1 || total1 != 2 || total2 != 2 || p1[0].ID == p2[0].ID {
		t.Fatalf("pages of one: %+v / %+v (%d, %d)", p1, p2, total1, total2)
	}
	// Pages past the end are empty, not errors.
	if page, total, _ := st.News(ctx, filings.NewsQuery{Offset: 2, Limit: 10}); len(page) != 0 || total != 2 {
		t.Fatalf("past the end: %d of %d", len(page), total)
	}
}
