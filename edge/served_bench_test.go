package edge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/valyala/fasthttp"

	"github.com/shariah-screen/shariah/internal/testsvc"
)

// BenchmarkServedReads measures the cached reads over a real connection, next to the bare constant
// route (GET /bench/constant) and the same constant body behind the key check and the meter (GET
// /bench/metered) in the same process and run: GET /api/quote/AAPL, GET /api/screen/MSFT with the
// screening cached, and GET /api/result/MSFT. What a read adds over the metered constant route is its
// own work (lookup, body, ETag). The in-process sub-benchmarks (…-inproc) call the app's handler
// directly, without the connection and the client, so that the route's own work is less buried.
//
//	go test -run '^$' -bench ServedReads ./edge/
func BenchmarkServedReads(b *testing.B) {
	e := setup(b, options{benchRoutes: true})
	k := e.benchKey(b)
	port, err := testsvc.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	go e.srv.Listen(fmt.Sprintf("127.0.0.1:%d", port))
	defer e.srv.Shutdown(context.Background())
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) (int, http.Header, error) {
		req, err := http.NewRequest("GET", base+path, nil)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("X-API-Key", k)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if status, _, err := get("/bench/constant"); err == nil && status == 200 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the edge did not start listening within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status, _, err := get("/api/screen/MSFT"); err != nil || status != 200 {
		b.Fatalf("screening MSFT: %d %v", status, err)
	}
	for _, c := range []struct{ name, path, cache string }{
		{"bare-route", "/bench/constant", ""},
		{"metered-route", "/bench/metered", ""},
		{"quote", "/api/quote/AAPL", ""},
		{"screen-cached", "/api/screen/MSFT", "HIT"},
		{"result", "/api/result/MSFT", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				status, h, err := get(c.path)
				if err != nil || status != 200 || (c.cache != "" && h.Get("X-Cache") != c.cache) {
					b.Fatalf("%s: %d %v X-Cache %q", c.path, status, err, h.Get("X-Cache"))
				}
			}
		})
	}
	handler := e.srv.App().Handler()
	for _, c := range []struct{ name, path, cache string }{
		{"bare-route-inproc", "/bench/constant", ""},
		{"metered-route-inproc", "/bench/metered", ""},
		{"quote-inproc", "/api/quote/AAPL", ""},
		{"screen-cached-inproc", "/api/screen/MSFT", "HIT"},
		{"result-inproc", "/api/result/MSFT", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			var req fasthttp.Request
			req.Header.SetMethod("GET")
			req.SetRequestURI(base + c.path)
			req.Header.Set("X-API-Key", k)
			var fc fasthttp.RequestCtx
			b.ReportAllocs()
			for b.Loop() {
				fc.Response.Reset()
				fc.Init(&req, nil, nil)
				handler(&fc)
				if st := fc.Response.StatusCode(); st != 200 || (c.cache != "" && string(fc.Response.Header.Peek("X-Cache")) != c.cache) {
					b.Fatalf("%s: %d %s", c.path, st, fc.Response.Body())
				}
			}
		})
	}
}

// benchKey issues an internal-plan key (no monthly allowance, no rate limit): a benchmark of any length
// is never refused.
func (e *env) benchKey(b *testing.B) string {
	b.Helper()
	ik, err := e.keys.Create(context.Background(), fmt.Sprintf("bench%d@example.com", time.Now().UnixNano()), account.PlanInternal)
	if err != nil {
		b.Fatal(err)
	}
	return ik.Key
}
