package market

import (
	"context"
	"sync"
	"time"
)

// Popularity counts quote requests per symbol and day (UTC), so the quote refresh can fetch the most
// requested symbols first.
type Popularity interface {
	AddRequests(ctx context.Context, counts map[string]int64, at time.Time) error
	// MostRequested returns up to n symbols, most requested first, over the days days up to now.
	MostRequested(ctx context.Context, n, days int, now time.Time) ([]string, error)
}

// RequestCounter counts requests in memory (a lock and a map add on the request path) and writes them
// to a Popularity in batches.
type RequestCounter struct {
	mu sync.Mutex
	m  map[string]int64
}

// Add counts one request of a symbol.
func (c *RequestCounter) Add(sym string) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	c.m[sym]++
	c.mu.Unlock()
}

// Flush writes what was counted since the last flush; counts that could not be written are kept for
// the next one.
func (c *RequestCounter) Flush(ctx context.Context, p Popularity, now time.Time) error {
	c.mu.Lock()
	m := c.m
	c.m = nil
	c.mu.Unlock()
	if len(m) == 0 {
		return nil
	}
	if err := p.AddRequests(ctx, m, now); err != nil {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]int64{}
		}
		for k, v := range m {
			c.m[k] += v
		}
		c.mu.Unlock()
		return err
	}
	return nil
}

// Run flushes every interval until ctx ends, then once more.
func (c *RequestCounter) Run(ctx context.Context, p Popularity, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = c.Flush(fctx, p, time.Now())
			cancel()
			return
		case <-t.C:
			_ = c.Flush(ctx, p, time.Now())
		}
	}
}
