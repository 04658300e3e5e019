// Package httpx is the HTTP client of the ingesters: one rate limiter per upstream, a User-Agent on every
// request, retries of 429 and 5xx with exponential backoff and jitter (honouring Retry-After),
// conditional requests (ETag, Last-Modified) so an unchanged document is not downloaded again, and
// file:// URLs so the same code reads a local mirror.
package httpx

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Client fetches documents.
type Client struct {
	HTTP       *http.Client
	UserAgent  string
	Limiter    *rate.Limiter // nil: unlimited
	MaxRetries int           // retries of 429, 5xx and transport errors; 0: 3
	Backoff    time.Duration // first retry delay; 0: 500 ms
	MaxBody    int64         // 0: 64 MiB

	mu    sync.Mutex
	cache map[string]cached // conditional-request validators and bodies by URL
}

type cached struct {
	etag, lastModified string
	body               []byte
}

// Response is a fetched document.
type Response struct {
	Body        []byte
	NotModified bool // the server said 304: Body is the copy from the last fetch
	Status      int
}

// StatusError is an HTTP error status that was not retried (or ran out of retries).
type StatusError struct {
	URL    string
	Status int
}

func (e *StatusError) Error() string { return fmt.Sprintf("GET %s: HTTP %d", e.URL, e.Status) }

// Get fetches raw (http, https or file URL).
func (c *Client) Get(ctx context.Context, raw string) (Response, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Response{}, err
	}
	if u.Scheme == "file" {
		b, err := os.ReadFile(u.Path)
		if err != nil {
			return Response{}, err
		}
		return Response{Body: b, Status: 200}, nil
	}
	retries, backoff, hc := c.MaxRetries, c.Backoff, c.HTTP
	if retries <= 0 {
		retries = 3
	}
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	var lastErr error
	for attempt := 0; attempt <= retries; attempt++ {
		if c.Limiter != nil {
			if err := c.Limiter.Wait(ctx); err != nil {
				return Response{}, err
			}
		}
		res, final, retryAfter, err := c.try(ctx, hc, raw)
		if final {
			return res, err
		}
		lastErr = err
		if attempt == retries {
			break
		}
		wait := backoff << attempt
		if retryAfter > 0 {
			wait = retryAfter
		}
		wait += time.Duration(rand.Int64N(int64(wait)/2 + 1))
		select {
		case <-ctx.Done():
			return Response{}, ctx.Err()
		case <-time.After(wait):
		}
	}
	return Response{}, fmt.Errorf("after %d attempts: %w", retries+1, lastErr)
}

// try makes one conditional request. final reports an answer to return as it is (a body, a 304 with
// the cached body, or a status that retrying cannot change); otherwise err is worth a retry, after
// retryAfter when the server said how long (capped at a minute).
func (c *Client) try(ctx context.Context, hc *http.Client, raw string) (res Response, final bool, retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return Response{}, true, 0, err
	}
	req.Header.Set("User-Agent", c.UserAgent)
	req.Header.Set("Accept-Encoding", "gzip")
	c.mu.Lock()
	prev, hasPrev := c.cache[raw]
	c.mu.Unlock()
	if hasPrev {
		if prev.etag != "" {
			req.Header.Set("If-None-Match", prev.etag)
		}
		if prev.lastModified != "" {
			req.Header.Set("If-Modified-Since", prev.lastModified)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Response{}, false, 0, err
	}
	body, rerr := readBody(resp, c.MaxBody)
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && hasPrev:
		return Response{Body: prev.body, NotModified: true, Status: 304}, true, 0, nil
	case resp.StatusCode == http.StatusOK && rerr == nil:
		c.mu.Lock()
		if c.cache == nil {
			c.cache = map[string]cached{}
		}
		if et, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"); et != "" || lm != "" {
			c.cache[raw] = cached{etag: et, lastModified: lm, body: body}
		}
		c.mu.Unlock()
		return Response{Body: body, Status: 200}, true, 0, nil
	case rerr != nil:
		return Response{}, false, 0, rerr
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			retryAfter = min(time.Duration(s)*time.Second, time.Minute)
		}
		return Response{}, false, retryAfter, &StatusError{URL: raw, Status: resp.StatusCode}
	default:
		return Response{Status: resp.StatusCode}, true, 0, &StatusError{URL: raw, Status: resp.StatusCode}
	}
}

// ErrTooLarge is a body over the limit.
var ErrTooLarge = errors.New("response body too large")

func readBody(resp *http.Response, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = 64 << 20
	}
	r := io.Reader(resp.Body)
	if resp.Header.Get("Content-Encoding") == "gzip" && !resp.Uncompressed {
		gz, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, err
		}
		r = gz
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, ErrTooLarge
	}
	return b, nil
}
