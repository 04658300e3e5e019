package news

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest/httpx"
)

// Feed ingests one RSS or Atom feed: each run fetches it (conditionally: an unchanged feed costs a 304),
// parses it, enriches every article (symbols, sentiment, compliance relevance) and stores them, merged
// with the articles already stored under the same normalised URL or title. The scheduler runs each
// feed as its own source ("news:<name>"), so one broken feed shows up in its own health and does not
// hold the others back. A malformed document fails the run with the parser's reason; nothing stored
// is touched.
type Feed struct {
	Name, URL string
	HTTP      *httpx.Client
	News      filings.NewsStore
	Tags      *TaggerCache
	Now       func() time.Time // nil: time.Now
}

// Run fetches and stores the feed; it returns how many articles were new.
func (f *Feed) Run(ctx context.Context) (int, error) {
	r, err := f.HTTP.Get(ctx, f.URL)
	if err != nil {
		return 0, err
	}
	arts, err := ParseFeed(r.Body, f.Name)
	if err != nil {
		return 0, err
	}
	var t *Tagger
	if f.Tags != nil {
		if t, err = f.Tags.Get(ctx); err != nil {
			return 0, fmt.Errorf("tagger: %w", err)
		}
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	seen := now().UTC().Truncate(time.Second)
	for i := range arts {
		// An item without a date is dated when it was first seen; a date in the future (a feed's
		// clock or time zone gone wrong) is brought back to now so it cannot sit on top of the list.
		if arts[i].Published.IsZero() || arts[i].Published.After(seen.Add(time.Hour)) {
			arts[i].Published = seen
		}
		Enrich(&arts[i], t)
	}
	return f.News.PutArticles(ctx, arts)
}

// AssetSource is what the tagger reads of the reference store: every asset.
type AssetSource interface {
	AllAssets(ctx context.Context) ([]shariah.Asset, error)
}

// TaggerCache builds the symbol tagger from the assets in the reference store and rebuilds it when
// it is older than TTL (0: 15 minutes), so feeds running together share one.
type TaggerCache struct {
	Ref AssetSource
	TTL time.Duration

	mu    sync.Mutex
	t     *Tagger
	built time.Time
}

// Get returns the current tagger.
func (c *TaggerCache) Get(ctx context.Context) (*Tagger, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ttl := c.TTL
	if ttl <= 0 {
		ttl = 15 * time.Minute
	}
	if c.t != nil && time.Since(c.built) < ttl {
		return c.t, nil
	}
	all, err := c.Ref.AllAssets(ctx)
	if err != nil {
		return nil, err
	}
	c.t, c.built = NewTagger(all), time.Now()
	return c.t, nil
}
