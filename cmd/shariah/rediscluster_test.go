package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/billing"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// api is a client of one edge process.
type api struct {
	t    *testing.T
	base string
}

// reply is an answer of the edge.
type reply struct {
	status int
	header http.Header
	body   []byte
	err    error // the request did not get an answer
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	return m
}

// tokens is X-Tokens-Charged.
func (r reply) tokens() int64 {
	n, _ := strconv.ParseInt(r.header.Get("X-Tokens-Charged"), 10, 64)
	return n
}

func (a api) do(method, path, key string, body any, hdr ...string) reply {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, a.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// must is do, failing the test unless the answer has the status.
func (a api) must(status int, method, path, key string, body any, hdr ...string) reply {
	a.t.Helper()
	r := a.do(method, path, key, body, hdr...)
	if r.err != nil || r.status != status {
		a.t.Fatalf("%s %s: %d %s %v, want %d", method, path, r.status, r.body, r.err, status)
	}
	return r
}

// startWorker starts `shariah worker` (no scheduled rescreens) and stops it when the test ends.
func startWorker(t *testing.T, s *testEnv, env ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	logs := &bytes.Buffer{}
	c := s.command([]string{"worker"}, append([]string{"SHARIAH_RESCREEN_SCHEDULES=", "SHARIAH_LOG_LEVEL=warn"}, env...)...)
	c.Stderr = &lockedWriter{w: logs}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c, logs
}

// prepare migrates the test's ClickHouse database and loads the default universe into its Redis.
func prepare(t *testing.T, s *testEnv) {
	t.Helper()
	for _, args := range [][]string{{"migrate"}, {"load", "--default", "--problems", "0"}} {
		if out, err := s.command(args).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", args[0], err, out)
		}
	}
}

// waitRun polls a run's status until it completes (60 s at most) and returns its results by symbol.
func waitRun(t *testing.T, a api, key, id string) (map[string]any, map[string]int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var st map[string]any
	for {
		r := a.do("GET", "/api/screen-bulk/status?run_id="+id, key, nil)
		if r.err == nil && r.status == 200 {
			if st = r.json(t); st["status"] == "completed" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s did not complete: %d %s", id, r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := a.must(200, "GET", "/api/screen-bulk/"+id+"/results?page_size=200", key, nil).json(t)
	seen := map[string]int{}
	for _, it := range res["results"].([]any) {
		seen[it.(map[string]any)["symbol"].(string)]++
	}
	return st, seen
}

// TestServiceOnRedisCluster: the edge, a worker and the ingest scheduler, each its own process, on a
// Redis Cluster of three masters with a replica each, given as SHARIAH_REDIS_URL in the form the
// service documents (one node, the others as ?addr=): key creation (the sign-up window and the
// operator command), metering with token leases (tokens_used exactly the sum of X-Tokens-Charged; a
// Free key exactly its allowance), a bulk run to completion, an ETF look-through, watchlists, a signed
// billing webhook, and the ingesters' runs and health.
func TestServiceOnRedisCluster(t *testing.T) {
	t.Parallel()
	cl := testsvc.MustRedisClusterReplicated(t)
	s := newEnvOn(t, cl.URL())
	prepare(t, s)
	const whsec = "whsec_cluster_test"
	edge := startEdge(t, s, "SHARIAH_BENCH_ROUTES=true", "SHARIAH_WEBHOOK_SECRET="+whsec, "SHARIAH_STRIPE_SECRET_KEY=sk_test_cluster", "SHARIAH_ETF_WAIT=30s", "SHARIAH_LOG_LEVEL=warn")
	_, workerLogs := startWorker(t, s)
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "AAPL.csv"), []byte("Date,Open,High,Low,Close,Volume\r\n"+
		"2026-10-29,261.6,265.5,260.3,263.54,58898257\r\n2026-10-30,260.98,264.47,260.48,262.00,55943912\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	feed, _ := filepath.Abs("../../ingest/news/testdata/rss.xml")
	ingest := s.command([]string{"ingest"}, "SHARIAH_LOG_LEVEL=warn", "SHARIAH_INGEST_AT_START=true",
		"SHARIAH_PRICES_URL=file://"+data+"/{canonical}.csv", "SHARIAH_PRICE_SYMBOLS=AAPL", "SHARIAH_NEWS_FEEDS=fixture|file://"+feed)
	var ingestLogs bytes.Buffer
	ingest.Stderr = &lockedWriter{w: &ingestLogs}
	if err := ingest.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ingest.Process.Kill(); ingest.Wait() })
	a := api{t: t, base: edge.base}

	// Keys: a free key from the sign-up route (its per-address and per-domain windows are one script)
	// and a Pro key from the operator command.
	free := a.must(200, "POST", "/api/keys/generate", "", map[string]any{"email": "cluster@example.com"}).json(t)["api_key"].(string)
	out, err := s.command([]string{"keys", "create", "--email", "ops-cluster@example.com", "--plan", "pro"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	pro := strings.TrimSpace(string(out))

	// Metering: a burst of mixed costs on the Pro key through its leases; tokens_used is exact.
	var charged atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				path := "/bench/metered"
				if (g+i)%3 == 0 {
					path = "/api/quote/AAPL"
				}
				r := a.do("GET", path, pro, nil)
				if r.err != nil || r.status != 200 {
					t.Errorf("GET %s: %d %s %v", path, r.status, r.body, r.err)
					return
				}
				charged.Add(r.tokens())
			}
		}()
	}
	wg.Wait()
	me := a.must(200, "GET", "/api/auth/me", pro, nil).json(t)
	if used := int64(me["quota"].(map[string]any)["tokens_used"].(float64)); used != charged.Load() {
		t.Fatalf("tokens_used %d, X-Tokens-Charged summed to %d", used, charged.Load())
	}
	// The Free key: exactly its allowance (50 tokens), then 429.
	served := 0
	for range 60 {
		r := a.do("GET", "/bench/metered", free, nil)
		switch r.status {
		case 200:
			served += int(r.tokens())
		case 429:
		default:
			t.Fatalf("free key: %d %s %v", r.status, r.body, r.err)
		}
	}
	if served != 50 {
		t.Fatalf("the free key was served %d tokens, want its allowance of 50", served)
	}

	// A bulk run to completion, every constituent once.
	run := a.must(202, "POST", "/api/screen-bulk", pro, map[string]any{"index_name": "SP500", "force_refresh": true}).json(t)
	id := run["run_id"].(string)
	st, seen := waitRun(t, a, pro, id)
	total := int(st["total"].(float64))
	if total == 0 || len(seen) != total {
		t.Fatalf("run %s: %d symbols in the results, total %d", id, len(seen), total)
	}
	for sym, n := range seen {
		if n != 1 {
			t.Fatalf("%s appears %d times", sym, n)
		}
	}

	// An ETF look-through on a worker (the request waits for it).
	etf := a.must(200, "POST", "/api/etf/SPUS/screen", pro, nil).json(t)
	if hs, _ := etf["holdings"].([]any); len(hs) == 0 {
		t.Fatalf("ETF look-through without holdings: %v", etf)
	}

	// Watchlists (the user's keys share a hash tag with their lists).
	wl := a.must(200, "POST", "/api/watchlists", pro, map[string]any{"name": "Tech", "symbols": []string{"MSFT", "BRK.B"}}).json(t)
	wid := wl["id"].(string)
	a.must(200, "POST", "/api/watchlists/"+wid+"/symbols", pro, map[string]any{"symbol": "AAPL"})
	got := a.must(200, "GET", "/api/watchlists/"+wid, pro, nil).json(t)
	if syms := fmt.Sprint(got["symbols"]); syms != "[MSFT BRK-B AAPL]" {
		t.Fatalf("watchlist symbols %s", syms)
	}
	a.must(200, "DELETE", "/api/watchlists/"+wid+"/symbols/AAPL", pro, nil)
	a.must(200, "DELETE", "/api/watchlists/"+wid, pro, nil)

	// A signed billing webhook upgrades the free key's user; a replay changes nothing.
	now := time.Now()
	event := fmt.Sprintf(`{"id":"evt_cluster_1","object":"event","type":"checkout.session.completed","created":%d,"data":{"object":{"id":"cs_1",
		"object":"checkout.session","client_reference_id":%q,"customer":"cus_cluster","subscription":"sub_1","metadata":{"plan":"starter"}}}}`,
		now.Unix(), shariah.PublicPrefix(free))
	sig := billing.Sign([]byte(event), whsec, now)
	if r := a.must(200, "POST", "/api/billing/webhook", "", event, "Stripe-Signature", sig).json(t); r["outcome"] != "plan starter" {
		t.Fatalf("webhook: %v", r)
	}
	a.must(400, "POST", "/api/billing/webhook", "", event, "Stripe-Signature", sig)
	if plan := a.must(200, "GET", "/api/auth/me", free, nil).json(t)["plan"]; plan != "starter" {
		t.Fatalf("plan after the webhook: %v", plan)
	}

	// The ingesters ran under their cross-process locks and recorded their health; the worker
	// registered with the queue.
	waitFor(t, "the ingesters' health and the worker queue", func() bool {
		h := a.do("GET", "/api/screen-bulk/source-health", pro, nil)
		if h.status != 200 {
			return false
		}
		status := map[string]string{}
		for _, src := range h.json(t)["sources"].([]any) {
			m := src.(map[string]any)
			status[m["name"].(string)] = m["status"].(string)
		}
		return status["ingest:prices"] == "ok" && status["ingest:news:fixture"] == "ok" && status["worker_queue"] == "ok"
	})
	if q := a.must(200, "GET", "/api/quote/AAPL", pro, nil).json(t); fmt.Sprint(q["price"]) != "262" {
		t.Logf("note: AAPL quote after the price ingest: %v (as of %v)", q["price"], q["as_of"])
	}
	for name, logs := range map[string]string{"edge": edge.logs.String(), "worker": workerLogs.String(), "ingest": ingestLogs.String()} {
		if strings.Contains(logs, `"level":"ERROR"`) {
			t.Errorf("%s logged errors:\n%s", name, logs)
		}
	}
}
