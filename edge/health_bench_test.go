package edge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/internal/testsvc"
)

// BenchmarkHealthWithHungClickHouse measures GET /api/health over a real connection while ClickHouse is
// hung (SIGSTOP) and health already names it unavailable, next to a bare constant route (GET
// /bench/constant) in the same process: the liveness target is under 50 ms per answer whatever hangs.
// It reports ns/op and the slowest answer (max-ms).
//
//	go test -run '^$' -bench HealthWithHungClickHouse ./edge/
func BenchmarkHealthWithHungClickHouse(b *testing.B) {
	chp, db := ownClickHouse(b, "benchhealth")
	e := setup(b, options{db: db, benchRoutes: true})
	port, err := testsvc.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	go e.srv.Listen(fmt.Sprintf("127.0.0.1:%d", port))
	defer e.srv.Shutdown(context.Background())
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) (int, []byte, error) {
		resp, err := client.Get(base + path)
		if err != nil {
			return 0, nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, body, err
	}
	clickhouse := func() string {
		_, body, err := get("/api/health")
		if err != nil {
			return ""
		}
		var h struct{ Services map[string]string }
		_ = json.Unmarshal(body, &h)
		return h.Services["clickhouse"]
	}
	until := func(what string, cond func() bool) {
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				b.Fatalf("not within 30 s: %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	until("health reports clickhouse ok", func() bool { return clickhouse() == "ok" })
	if err := chp.Signal(syscall.SIGSTOP); err != nil {
		b.Fatal(err)
	}
	defer chp.Signal(syscall.SIGCONT)
	until("health reports the hung clickhouse unavailable", func() bool { return clickhouse() == "unavailable" })

	for _, path := range []string{"/api/health", "/bench/constant"} {
		name := map[string]string{"/api/health": "health", "/bench/constant": "bare-route"}[path]
		b.Run(name, func(b *testing.B) {
			var slowest time.Duration
			for b.Loop() {
				start := time.Now()
				status, _, err := get(path)
				if err != nil || status != 200 {
					b.Fatalf("%s: %d %v", path, status, err)
				}
				slowest = max(slowest, time.Since(start))
			}
			b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms")
		})
	}
	if clickhouse() != "unavailable" {
		b.Fatal("clickhouse was not hung for the whole benchmark")
	}
}
