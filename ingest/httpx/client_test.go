package httpx

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestRetriesUserAgentAndConditionalRequests(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.Header.Get("User-Agent") != "test-agent admin@example.com" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/flaky":
			switch n {
			case 1:
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
			case 2:
				w.WriteHeader(http.StatusServiceUnavailable)
			default:
				w.Header().Set("ETag", `"v1"`)
				w.Write([]byte("payload"))
			}
		case "/etag":
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Write([]byte("first"))
		case "/missing":
			w.WriteHeader(http.StatusNotFound)
		case "/down":
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	c := &Client{UserAgent: "test-agent admin@example.com", Backoff: 10 * time.Millisecond, MaxRetries: 3}
	ctx := context.Background()
	start := time.Now()
	r, err := c.Get(ctx, srv.URL+"/flaky")
	if err != nil || string(r.Body) != "payload" || calls.Load() != 3 {
		t.Fatalf("flaky: %q %v after %d calls", r.Body, err, calls.Load())
	}
	if time.Since(start) < time.Second {
		t.Fatal("Retry-After: 1 was not honoured")
	}
	calls.Store(0)
	if r, err := c.Get(ctx, srv.URL+"/etag"); err != nil || string(r.Body) != "first" {
		t.Fatalf("etag first: %v", err)
	}
	r, err = c.Get(ctx, srv.URL+"/etag")
	if err != nil || !r.NotModified || string(r.Body) != "first" {
		t.Fatalf("conditional request: %+v %v", r, err)
	}
	calls.Store(0)
	if _, err := c.Get(ctx, srv.URL+"/missing"); err == nil || calls.Load() != 1 {
		t.Fatalf("404 retried or accepted: %v after %d calls", err, calls.Load())
	}
	calls.Store(0)
	if _, err := c.Get(ctx, srv.URL+"/down"); err == nil || calls.Load() != 4 {
		t.Fatalf("5xx: %v after %d calls, want 4 attempts", err, calls.Load())
	}
	noUA := &Client{MaxRetries: 1, Backoff: time.Millisecond}
	if _, err := noUA.Get(ctx, srv.URL+"/flaky"); err == nil {
		t.Fatal("a request without the User-Agent got through")
	}
}

func TestRateLimiterSpacesRequests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	c := &Client{UserAgent: "x", Limiter: rate.NewLimiter(8, 1)}
	start := time.Now()
	for range 9 {
		if _, err := c.Get(context.Background(), srv.URL); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 900*time.Millisecond {
		t.Fatalf("9 requests at 8/s took %s", el)
	}
}

func TestFileURL(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "doc.json")
	os.WriteFile(p, []byte(`{"a":1}`), 0o644)
	c := &Client{}
	r, err := c.Get(context.Background(), "file://"+p)
	if err != nil || string(r.Body) != `{"a":1}` {
		t.Fatalf("%q %v", r.Body, err)
	}
	if _, err := c.Get(context.Background(), "file://"+p+".missing"); err == nil {
		t.Fatal("missing file read")
	}
}
