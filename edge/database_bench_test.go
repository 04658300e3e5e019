package edge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/datapack"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// BenchmarkCatalogRoutes measures search and suggest over real connections on the real catalog (the
// ~60,000 records of the shared data set), next to the bare constant route (no key, no meter) and the
// metered constant route in the same process. Sub-benchmarks "http/…" time one request after another
// with Go's client (ns/op). With wrk on the PATH, "wrk/…" runs wrk once per route (1 thread, 8
// connections, WRK_DURATION, default 5s) and reports its throughput (req/s), that throughput relative
// to the constant route's (x-constant), wrk's 99th percentile latency (p99-ms) and the server's heap
// allocations per request (allocs/req, B/req: wrk is another process, so the process allocates only
// to serve): the README's figures. A last route sends varied queries (a wrk script) that the memo of
// encoded answers mostly cannot serve. The test environment writes an access log line per request, as the
// constant route does too.
//
//	SHARIAH_DATA_DIR=../shared/data go test -run '^$' -bench CatalogRoutes ./edge/
func BenchmarkCatalogRoutes(b *testing.B) {
	dir := sharedData(b, "reference")
	p, _, err := datapack.ReadShared(os.DirFS(dir))
	if err != nil {
		b.Fatal(err)
	}
	e := setup(b, options{benchRoutes: true})
	ctx := context.Background()
	if err := e.ref.PutAssets(ctx, p.Assets); err != nil {
		b.Fatal(err)
	}
	want, err := e.ref.BumpVersion(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if got, err := e.served.Version(ctx); err == nil && got == want {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the edge did not see the loaded data within 30 s")
		}
	}
	k, err := e.keys.Create(ctx, "bench@example.com", account.PlanEnterprise)
	if err != nil {
		b.Fatal(err)
	}
	port, err := testsvc.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	go e.srv.Listen(fmt.Sprintf("127.0.0.1:%d", port))
	defer e.srv.Shutdown(context.Background())
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) (int, error) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("X-API-Key", k.Key)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, err
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if status, err := get("/api/database/search?q=AAPL"); err == nil && status == 200 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the edge did not answer within 10 s")
		}
	}
	routes := []struct{ name, path string }{
		{"constant", "/bench/constant"}, {"metered-constant", "/bench/metered"},
		{"search-q=apple", "/api/database/search?q=apple"}, {"search-q=a", "/api/database/search?q=a"},
		{"suggest-q=ap", "/api/suggest?q=ap"},
	}
	for _, r := range routes {
		b.Run("http/"+r.name, func(b *testing.B) {
			for b.Loop() {
				if status, err := get(r.path); err != nil || status != 200 {
					b.Fatalf("%s: %d %v", r.path, status, err)
				}
			}
		})
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		return
	}
	duration := os.Getenv("WRK_DURATION")
	if duration == "" {
		duration = "5s"
	}
	rpsRE := regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	countRE := regexp.MustCompile(`([0-9]+) requests in`)
	p99RE := regexp.MustCompile(`\s99%\s+([0-9.]+)(us|ms|s)`)
	var constant float64
	// Varied queries defeat the memo: two random letters and a random page of 100 of up to 21 (14,196
	// queries, most of whose bodies the bounded memo cannot hold at once).
	script := b.TempDir() + "/random.lua"
	if err := os.WriteFile(script, []byte(`local letters = "abcdefghijklmnopqrstuvwxyz"
request = function()
  local a, c = math.random(1, 26), math.random(1, 26)
  return wrk.format("GET", "/api/database/search?q=" .. letters:sub(a, a) .. letters:sub(c, c) .. "&offset=" .. 100 * math.random(0, 20))
end
`), 0o600); err != nil {
		b.Fatal(err)
	}
	routes = append(routes, struct{ name, path string }{"search-random-2-letters-and-page", "/api/database/search"})
	for _, r := range routes {
		b.Run("wrk/"+r.name, func(b *testing.B) {
			args := []string{"-t1", "-c8", "-d" + duration, "--latency", "-H", "X-API-Key: " + k.Key}
			if r.name == "search-random-2-letters-and-page" {
				args = append(args, "-s", script)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out, err := exec.Command("wrk", append(args, base+r.path)...).CombinedOutput()
			runtime.ReadMemStats(&after)
			rm, pm, cm := rpsRE.FindSubmatch(out), p99RE.FindSubmatch(out), countRE.FindSubmatch(out)
			if err != nil || rm == nil || pm == nil || cm == nil || regexp.MustCompile(`Non-2xx`).Match(out) {
				b.Fatalf("wrk %s: %v\n%s", r.path, err, out)
			}
			rps, _ := strconv.ParseFloat(string(rm[1]), 64)
			p99, _ := strconv.ParseFloat(string(pm[1]), 64)
			p99 *= map[string]float64{"us": 0.001, "ms": 1, "s": 1000}[string(pm[2])]
			if r.name == "constant" {
				constant = rps
			}
			b.ReportMetric(rps, "req/s")
			b.ReportMetric(rps/constant, "x-constant")
			b.ReportMetric(p99, "p99-ms")
			n, _ := strconv.ParseFloat(string(cm[1]), 64)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/req")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/req")
		})
	}
}
