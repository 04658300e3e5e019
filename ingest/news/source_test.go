package news_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/news"
	"github.com/shariah-screen/shariah/internal/redistest"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestFeedRunOnRealRedis serves the RSS fixture, then a malformed document, from a local server and
// runs the feed through the scheduler: articles are stored enriched and tagged, a second run of the
// same feed adds nothing, and a malformed document fails the run in the feed's health without
// touching what is stored.
func TestFeedRunOnRealRedis(t *testing.T) {
	t.Parallel()
	_, rc := redistest.StartWithDefaultPack(t)
	ctx := context.Background()
	ref := sredis.NewRefStore(rc)
	good, _ := os.ReadFile("testdata/rss.xml")
	bad, _ := os.ReadFile("testdata/malformed.xml")
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			w.Write(bad)
			return
		}
		w.Write(good)
	}))
	defer srv.Close()

	store, health := sredis.NewNewsStore(rc), sredis.NewIngestStore(rc)
	fixed := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	feed := &news.Feed{Name: "example", URL: srv.URL + "/rss", HTTP: &httpx.Client{UserAgent: "test"}, News: store,
		Tags: &news.TaggerCache{Ref: ref}, Now: func() time.Time { return fixed }}
	sched := ingest.NewScheduler(health, testLog())
	sched.Backoff = time.Millisecond
	if err := sched.Add(ingest.Source{Name: "news:example", Schedule: "@every 1h", Retries: 1, Run: feed.Run}); err != nil {
		t.Fatal(err)
	}
	if err := sched.RunOnce(ctx, "news:example"); err != nil {
		t.Fatal(err)
	}
	arts, total, err := store.News(ctx, filings.NewsQuery{Limit: 100})
	if err != nil || total < 3 {
		t.Fatalf("stored %d articles: %v", total, err)
	}
	var apple *filings.Article
	for i := range arts {
		a := &arts[i]
		if a.Published.After(fixed) || a.ComplianceRelevance == "" || a.SentimentLabel == "" {
			t.Fatalf("article not dated or enriched: %+v", a)
		}
		if strings.HasPrefix(a.Title, "Apple prices") {
			apple = a
		}
	}
	if apple == nil || !contains(apple.Symbols, "AAPL") || apple.ComplianceRelevance != "high" || strings.Contains(apple.URL, "utm_source") && apple.ID == "" {
		t.Fatalf("the Apple notes item: %+v", apple)
	}
	if err := sched.RunOnce(ctx, "news:example"); err != nil {
		t.Fatal(err)
	}
	if _, total2, _ := store.News(ctx, filings.NewsQuery{Limit: 100}); total2 != total {
		t.Fatalf("second run of the same feed: %d articles, was %d", total2, total)
	}
	broken.Store(true)
	if err := sched.RunOnce(ctx, "news:example"); err == nil {
		t.Fatal("a malformed feed ran without error")
	}
	hs, _ := health.Health(ctx)
	var h filings.SourceHealth
	for _, x := range hs {
		if x.Name == "news:example" {
			h = x
		}
	}
	if h.Status != "failing" || !strings.Contains(h.LastError, "malformed") || h.Runs != 3 || h.LastSuccessAt == nil {
		t.Fatalf("health after a malformed feed: %+v", h)
	}
	if _, total3, _ := store.News(ctx, filings.NewsQuery{Limit: 100}); total3 != total {
		t.Fatalf("a malformed feed changed the store: %d articles, was %d", total3, total)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func testLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
