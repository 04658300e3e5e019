package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// api is a client of one edge process.
type api struct {
	t    *testing.T
	base string
	// charged sums X-Tokens-Charged by key (the final figure of every answer: a refunded one shows 0)
	charged *sync.Map
}

// chargedTo is the sum of X-Tokens-Charged of every answer to key's requests.
func (a api) chargedTo(key string) int64 {
	if v, ok := a.charged.Load(key); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
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
	r := reply{status: resp.StatusCode, header: resp.Header, body: b, err: err}
	if a.charged != nil && key != "" {
		v, _ := a.charged.LoadOrStore(key, &atomic.Int64{})
		v.(*atomic.Int64).Add(r.tokens())
	}
	return r
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

// prepare migrates the test's ClickHouse database and loads the default universe into its Redis (env:
// settings of the commands, e.g. a ClickHouse cluster).
func prepare(t *testing.T, s *testEnv, env ...string) {
	t.Helper()
	for _, args := range [][]string{{"migrate"}, {"load", "--default", "--problems", "0"}} {
		if out, err := s.command(args, env...).CombinedOutput(); err != nil {
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
	if testing.Short() {
		t.Skip("starts a Redis Cluster and the binaries")
	}
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
		now.Unix(), account.PublicPrefix(free))
	sig := shariah.SignTimestamped(whsec, []byte(event), now)
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
	for name, logs := range map[string]string{"edge": edge.logs.String(), "worker": workerLogs.String(), "ingest": ingestLogs.String()} {
		if strings.Contains(logs, `"level":"ERROR"`) {
			t.Errorf("%s logged errors:\n%s", name, logs)
		}
	}
}

// outcome tallies the answers of a load loop.
type outcome struct {
	mu       sync.Mutex
	statuses map[int]int
	failures []string // answers that are neither served, refused by the meter nor 503
	tokens   int64    // X-Tokens-Charged of the 200s
}

func (o *outcome) add(path string, r reply) {
	problem := ""
	switch {
	case r.err != nil, r.status == 200, r.status == 429 || r.status == 503:
	default:
		problem = fmt.Sprintf("%d %s", r.status, r.body)
	}
	o.note(path, r, problem)
}

// note counts an answer; an unanswered request, or one the caller names a problem, is a failure. The
// tokens of a 200 are summed.
func (o *outcome) note(path string, r reply, problem string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.statuses == nil {
		o.statuses = map[int]int{}
	}
	o.statuses[r.status]++
	switch {
	case r.err != nil:
		o.failures = append(o.failures, fmt.Sprintf("%s: no answer: %v", path, r.err))
	case problem != "":
		o.failures = append(o.failures, path+": "+problem)
	case r.status == 200:
		o.tokens += r.tokens()
	}
}

// TestRedisClusterFailoverUnderLoad: with the edge, a worker and a bulk run working on a cluster of
// three masters with a replica each, the master holding the bulk queue (asynq's {bulk} slot), a Free
// key's and a Pro key's records and meters and some quotes is killed with SIGKILL under load. Its
// replica takes over; requests recover by themselves: 503 during the gap, never a 500 or an
// unanswered request; the Free key (hard block, charged exactly) is never served past its allowance
// and its tokens_used never passes it; the run completes with every symbol once and no symbol's
// outcome an error; an ETF look-through works afterwards. The times from the kill to the first Free
// request served again, to the cluster reporting ok and to the run's completion are logged.
func TestRedisClusterFailoverUnderLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a Redis Cluster and the binaries")
	}
	cl := testsvc.MustRedisClusterReplicated(t)
	s := newEnvOn(t, cl.URL())
	prepare(t, s)
	edge := startEdge(t, s, "SHARIAH_BENCH_ROUTES=true", "SHARIAH_LOG_LEVEL=warn")
	worker, workerLogs := startWorker(t, s, "SHARIAH_BULK_CONCURRENCY=1", "SHARIAH_BULK_PAUSE=250ms")
	a := api{t: t, base: edge.base, charged: &sync.Map{}}
	victim, err := cl.MasterOf("asynq:{bulk}")
	if err != nil {
		t.Fatal(err)
	}
	onVictim := func(tag string) bool {
		m, err := cl.MasterOf(tag)
		return err == nil && m == victim
	}
	// Keys whose record and meter (hash tag: the key's SHA-256) live on the victim.
	newKey := func(plan string) string {
		for i := range 50 {
			out, err := s.command([]string{"keys", "create", "--email", fmt.Sprintf("failover-%s-%d@example.com", plan, i), "--plan", plan}).Output()
			if err != nil {
				t.Fatal(err)
			}
			if k := strings.TrimSpace(string(out)); onVictim(account.HashKey(k)) {
				return k
			}
		}
		t.Fatalf("no %s key landed on the master to kill", plan)
		return ""
	}
	free, pro := newKey(account.PlanFree), newKey(account.PlanPro)
	// and a key elsewhere, whose reads are refused (CLUSTERDOWN) only while the cluster is failing
	var other string
	for i := 0; other == ""; i++ {
		out, err := s.command([]string{"keys", "create", "--email", fmt.Sprintf("failover-other-%d@example.com", i), "--plan", "enterprise"}).Output()
		if err != nil || i > 50 {
			t.Fatalf("no key off the master to kill: %v", err)
		}
		if k := strings.TrimSpace(string(out)); !onVictim(account.HashKey(k)) {
			other = k
		}
	}
	// Quotes on the victim and elsewhere: while the cluster reads fail, every node refuses every key.
	var quotes, victimQuotes []string
	for _, sym := range []string{"AAPL", "MSFT", "JNJ", "KO", "JPM", "XOM", "NVDA", "AMZN", "PG", "GOOGL"} {
		if a.do("GET", "/api/quote/"+sym, pro, nil).status == 200 {
			quotes = append(quotes, sym)
			if onVictim(sym) {
				victimQuotes = append(victimQuotes, sym)
			}
		}
	}
	if len(victimQuotes) == 0 {
		t.Fatal("no quote of the default universe lives on the master to kill")
	}

	run := a.must(202, "POST", "/api/screen-bulk", pro, map[string]any{"index_name": "SP500", "force_refresh": true}).json(t)
	runID := run["run_id"].(string)
	t.Logf("run %s (its keys on the master to kill: %v); quotes on it: %v", runID, onVictim(runID), victimQuotes)

	// Load: the Pro key from three loops (leased; quotes, some read from the victim) and uncached reads
	// of a key elsewhere from a fourth; once the run has screened two symbols, the Free key, one request
	// every 40 ms (each a script call on the victim: its allowance is too small to lease).
	var freeLog, proLog, otherLog outcome
	var freeServedAfter atomic.Int64 // when the first Free request after the kill was served, Unix ns
	var killedAt atomic.Int64
	stop := make(chan struct{})
	freeDone := make(chan struct{})
	freeLoad := func() {
		defer close(freeDone)
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			<-tick.C
			r := a.do("GET", "/bench/metered", free, nil)
			freeLog.add("free /bench/metered", r)
			if k := killedAt.Load(); k != 0 && r.status == 200 {
				freeServedAfter.CompareAndSwap(0, time.Now().UnixNano())
			}
			if freeServedAfter.Load() != 0 && r.status == 429 {
				return // the allowance is used up after the failover
			}
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				if g == 3 { // uncached reads off the victim
					path := []string{"/api/auth/me", "/api/watchlists", "/api/screen-bulk/runs"}[i%3]
					otherLog.add(path, a.do("GET", path, other, nil))
					continue
				}
				path := "/bench/metered"
				if (g+i)%2 == 0 {
					path = "/api/quote/" + quotes[i%len(quotes)]
				}
				proLog.add(path, a.do("GET", path, pro, nil))
			}
		}()
	}

	waitFor(t, "the run to screen two symbols", func() bool {
		r := a.do("GET", "/api/screen-bulk/status?run_id="+runID, pro, nil)
		return r.status == 200 && r.json(t)["processed"].(float64) >= 2
	})
	go freeLoad()
	waitFor(t, "the Free key to be served five times", func() bool {
		freeLog.mu.Lock()
		defer freeLog.mu.Unlock()
		return freeLog.statuses[200] >= 5
	})
	if err := cl.KillMaster(victim); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	killedAt.Store(killed.UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	promoted, err := cl.WaitFailover(ctx, victim)
	if err != nil {
		t.Fatal(err)
	}
	clusterOK := time.Since(killed)
	select {
	case <-freeDone:
	case <-time.After(60 * time.Second):
		t.Fatal("the Free key's loop did not end")
	}
	firstFree := time.Duration(freeServedAfter.Load() - killed.UnixNano())
	st, seen := waitRun(t, a, pro, runID)
	runDone := time.Since(killed)
	close(stop)
	wg.Wait()

	for _, o := range []*outcome{&freeLog, &proLog, &otherLog} {
		if len(o.failures) > 0 {
			t.Errorf("%d answers other than 200, 429 and 503, first: %s", len(o.failures), o.failures[0])
		}
	}
	if freeServedAfter.Load() == 0 {
		t.Fatal("the Free key was never served after the kill")
	}
	used := int64(a.must(200, "GET", "/api/auth/me", free, nil).json(t)["quota"].(map[string]any)["tokens_used"].(float64))
	if freeLog.tokens > 50 || used > 50 {
		t.Fatalf("Free key overspent: served %d tokens, tokens_used %d, allowance 50", freeLog.tokens, used)
	}
	total := int(st["total"].(float64))
	if len(seen) != total {
		t.Fatalf("the run completed with %d of %d symbols", len(seen), total)
	}
	for sym, n := range seen {
		if n != 1 {
			t.Fatalf("%s appears %d times in the run's results", sym, n)
		}
	}
	if errs := st["errors"].(float64); errs != 0 {
		t.Fatalf("the run recorded %v symbols as errors (a Redis failover is not a symbol's outcome)\n%s", errs, workerLogs.String())
	}
	if etf := a.must(200, "POST", "/api/etf/HLAL/screen", pro, nil).json(t); etf["symbol"] != "HLAL" {
		t.Fatalf("ETF look-through after the failover: %v", etf)
	}
	if !running(worker) || !running(edge.cmd) {
		t.Fatal("the worker or the edge exited")
	}
	t.Logf("killed master %d, replica %d took over: cluster_state ok on every node %v after the kill; first Free request (a script call on the "+
		"failed slots) served %v after it; run completed %v after it", victim.Port, promoted.Port, clusterOK.Round(time.Millisecond),
		firstFree.Round(time.Millisecond), runDone.Round(time.Millisecond))
	proUsed := int64(a.must(200, "GET", "/api/auth/me", pro, nil).json(t)["quota"].(map[string]any)["tokens_used"].(float64))
	proCharged := a.chargedTo(pro)
	if proUsed < proCharged {
		t.Errorf("the Pro key is under-counted: tokens_used %d, charged %d", proUsed, proCharged)
	}
	t.Logf("answers by status: Free key %v, %d tokens served, tokens_used %d; Pro key (leased) %v, every request charged %d tokens, "+
		"tokens_used %d; uncached reads %v", freeLog.statuses, freeLog.tokens, used, proLog.statuses, proCharged, proUsed, otherLog.statuses)
}

// running tells whether a started process still runs (Linux: not a zombie; elsewhere, assumed).
func running(c *exec.Cmd) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.Process.Pid))
	if err != nil {
		return runtime.GOOS != "linux"
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}

// exits runs a subcommand that must fail at start and returns its output (20 s at most).
func exits(t *testing.T, s *testEnv, args ...string) string {
	t.Helper()
	cmd := s.command(args, "SHARIAH_HTTP_ADDR=127.0.0.1:0", "SHARIAH_MCP_ADDR=127.0.0.1:0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &lockedWriter{w: &out}, &lockedWriter{w: &out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("%v succeeded:\n%s", args, out.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v still running 20 s after its start:\n%s", args, out.String())
	}
	return out.String()
}

// TestRedisClusterDownAtStartAndAtRunTime: a cluster URL whose nodes do not answer, and a cluster in
// state fail (a master lost without a replica), stop serve, worker, ingest and the key command at
// start with an error naming SHARIAH_REDIS_URL. An edge and a worker already running when the cluster
// fails keep running: /readyz and a request the meter must charge in Redis answer 503 (never 500), and
// once the master is back both serve again by themselves.
func TestRedisClusterDownAtStartAndAtRunTime(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a Redis Cluster and the binaries")
	}
	p1, _ := testsvc.FreePort()
	p2, _ := testsvc.FreePort()
	closed := newEnvOn(t, fmt.Sprintf("redis://127.0.0.1:%d?addr=127.0.0.1:%d", p1, p2))
	for _, args := range [][]string{{"serve"}, {"worker"}, {"ingest"}, {"keys", "create", "--email", "x@example.com"}} {
		if out := exits(t, closed, args...); !strings.Contains(out, "SHARIAH_REDIS_URL: no Redis answers at 127.0.0.1:"+strconv.Itoa(p1)) {
			t.Fatalf("%v on a cluster that does not answer:\n%s", args, out)
		}
	}

	cl := testsvc.MustRedisClusterWith(t, testsvc.RedisClusterOptions{Masters: 3, NodeTimeout: 500 * time.Millisecond})
	s := newEnvOn(t, cl.URL())
	prepare(t, s)
	edge := startEdge(t, s, "SHARIAH_BENCH_ROUTES=true", "SHARIAH_LOG_LEVEL=warn")
	worker, workerLogs := startWorker(t, s)
	a := api{t: t, base: edge.base}
	// A Free key (charged by a script call per request) and an Enterprise key, on masters that stay.
	key := func(plan string) (string, *testsvc.Proc) {
		out, err := s.command([]string{"keys", "create", "--email", "down-" + plan + "@example.com", "--plan", plan}).Output()
		if err != nil {
			t.Fatalf("keys create: %v", err)
		}
		k := strings.TrimSpace(string(out))
		home, err := cl.MasterOf(account.HashKey(k))
		if err != nil {
			t.Fatal(err)
		}
		return k, home
	}
	free, freeHome := key(account.PlanFree)
	ops, opsHome := key(account.PlanEnterprise)
	var victim *testsvc.Proc
	for _, n := range cl.Nodes {
		if n != freeHome && n != opsHome {
			victim = n
		}
	}
	a.must(200, "GET", "/bench/metered", free, nil)
	for range 20 { // the Enterprise key's edge holds a lease of its tokens
		a.must(200, "GET", "/bench/metered", ops, nil)
	}
	a.must(200, "GET", "/readyz", "", nil)

	if err := cl.KillMaster(victim); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.WaitState(ctx, "fail"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"serve"}, {"worker"}, {"ingest"}, {"keys", "create", "--email", "y@example.com"}} {
		if out := exits(t, s, args...); !strings.Contains(out, "SHARIAH_REDIS_URL: the Redis Cluster is in state fail") {
			t.Fatalf("%v on a cluster in state fail:\n%s", args, out)
		}
	}
	// At run time: the meter's Redis cannot charge, so 503 with Retry-After; readiness says so.
	for _, path := range []string{"/bench/metered", "/api/auth/me", "/api/quote/AAPL"} {
		r := a.do("GET", path, free, nil)
		if r.err != nil || r.status != 503 || r.header.Get("Retry-After") == "" {
			t.Fatalf("GET %s on a failed cluster: %d %s %v", path, r.status, r.body, r.err)
		}
	}
	// A request its edge's token lease still covers needs no Redis and is served from it; a key quiet
	// for two lease intervals (as this one while the start-up checks ran) has given its lease back and
	// gets 503 like the rest.
	leased := map[int]int{}
	for range 10 {
		r := a.do("GET", "/bench/metered", ops, nil)
		if r.err != nil || (r.status != 200 && r.status != 503) {
			t.Fatalf("a leased request on a failed cluster: %d %s %v", r.status, r.body, r.err)
		}
		leased[r.status]++
	}
	t.Logf("requests of a key with a lease on a failed cluster: %v", leased)
	waitFor(t, "/readyz to say the edge cannot meter", func() bool { return a.do("GET", "/readyz", "", nil).status == 503 })
	if h := a.must(200, "GET", "/api/health", "", nil).json(t); h["status"] != "degraded" {
		t.Fatalf("health on a failed cluster: %v", h)
	}

	// The master back (empty: no persistence): the cluster is ok again and the processes serve.
	if err := victim.RestartRedis(); err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitState(ctx, "ok"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the edge to meter again", func() bool { return a.do("GET", "/bench/metered", ops, nil).status == 200 })
	a.must(200, "GET", "/readyz", "", nil)
	if !running(worker) || !running(edge.cmd) {
		t.Fatal("the worker or the edge exited")
	}
	var last reply
	deadline := time.Now().Add(30 * time.Second)
	for {
		last = a.do("GET", "/api/screen-bulk/source-health", ops, nil)
		if last.status == 200 && strings.Contains(string(last.body), `"name":"worker_queue","status":"ok"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker is not registered with the queue: %d %s\nworker:\n%s\nedge:\n%s", last.status, last.body, workerLogs.String(), edge.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRedisClusterFailoverNewWork: on a cluster of three masters with a replica each, the master
// holding the bulk queue's slot ({bulk}) is killed with SIGKILL while clients keep asking for a quote
// on it and starting bulk runs. Every answer is 200/202 or 503 with Retry-After (a failed enqueue is
// the queue unavailable, not a 500), never unanswered; once every node reports cluster_state:ok a
// quote is served and a bulk run accepted without a restart. The times from cluster_state:ok to the
// first quote and to the first accepted run are logged (the queue's client reloads its slot map on a
// failed dial or CLUSTERDOWN and retries a command not run; jobs.TestEnqueueRightAfterFailover
// asserts that the first enqueue after cluster_state:ok succeeds).
func TestRedisClusterFailoverNewWork(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a Redis Cluster and the binaries")
	}
	cl := testsvc.MustRedisClusterReplicated(t)
	s := newEnvOn(t, cl.URL())
	prepare(t, s)
	edge := startEdge(t, s, "SHARIAH_LOG_LEVEL=warn")
	a := api{t: t, base: edge.base}
	out, err := s.command([]string{"keys", "create", "--email", "newwork@example.com", "--plan", "enterprise"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(out))
	victim, err := cl.MasterOf("asynq:{bulk}")
	if err != nil {
		t.Fatal(err)
	}
	var indices []string
	for _, l := range a.must(200, "GET", "/api/screen-bulk/indices", key, nil).json(t)["indices"].([]any) {
		indices = append(indices, l.(map[string]any)["name"].(string))
	}
	// A run accepted before the kill: the queue's client has a connection to the victim.
	a.must(202, "POST", "/api/screen-bulk", key, map[string]any{"index_name": indices[0], "limit": 1})
	var quote string
	for _, sym := range []string{"AAPL", "MSFT", "JNJ", "KO", "JPM", "XOM", "NVDA", "AMZN", "PG", "GOOGL"} {
		if m, err := cl.MasterOf(sym); err == nil && m == victim && a.do("GET", "/api/quote/"+sym, key, nil).status == 200 {
			quote = sym
			break
		}
	}
	if quote == "" {
		t.Fatal("no quote of the default universe lives on the master to kill")
	}

	// From the kill on, clients read the quote and start runs (each on an index not claimed yet) every
	// 20 ms until one of each succeeds after cluster_state:ok.
	var okAt, quoteAt, bulkAt atomic.Int64 // Unix ns
	var quotes, posts outcome
	var afterOK atomic.Int64 // POSTs sent after cluster_state:ok, the accepted one included
	check := func(o *outcome, path string, r reply) {
		problem := ""
		switch {
		case r.err != nil:
		case r.status == 503 && r.header.Get("Retry-After") == "":
			problem = "503 without Retry-After"
		case r.status != 200 && r.status != 202 && r.status != 503:
			problem = fmt.Sprintf("%d %s", r.status, r.body)
		}
		o.note(path, r, problem)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for quoteAt.Load() == 0 {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			sent := time.Now().UnixNano()
			r := a.do("GET", "/api/quote/"+quote, key, nil)
			check(&quotes, "GET /api/quote/"+quote, r)
			if ok := okAt.Load(); r.status == 200 && ok != 0 && sent >= ok {
				quoteAt.Store(time.Now().UnixNano())
			}
		}
	}()
	go func() {
		defer wg.Done()
		next := 1
		for bulkAt.Load() == 0 && next < len(indices) {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			sent := time.Now().UnixNano()
			r := a.do("POST", "/api/screen-bulk", key, map[string]any{"index_name": indices[next], "limit": 1})
			if r.status == 409 { // a run of the index queued meanwhile (by a POST answered 503 as its reply was lost)
				next++
				continue
			}
			check(&posts, "POST /api/screen-bulk", r)
			ok := okAt.Load()
			if ok != 0 && sent >= ok {
				afterOK.Add(1)
			}
			if r.status == 202 {
				next++
				if ok != 0 && sent >= ok {
					bulkAt.Store(time.Now().UnixNano())
				}
			}
		}
	}()
	if err := cl.KillMaster(victim); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cl.WaitFailover(ctx, victim); err != nil {
		t.Fatal(err)
	}
	ok := time.Now()
	okAt.Store(ok.UnixNano())
	waitFor(t, "a quote served and a bulk run accepted after cluster_state:ok", func() bool { return quoteAt.Load() != 0 && bulkAt.Load() != 0 })
	close(stop)
	wg.Wait()
	for _, o := range []*outcome{&quotes, &posts} {
		if len(o.failures) > 0 {
			t.Errorf("%d answers other than served or 503 with Retry-After, first: %s", len(o.failures), o.failures[0])
		}
	}
	since := func(ns int64) time.Duration { return time.Duration(ns - ok.UnixNano()).Round(time.Millisecond) }
	t.Logf("cluster_state:ok %v after the kill; from then: first quote served %v, first bulk run accepted %v (POST %d after ok); "+
		"answers from the kill on: quotes %v, POSTs %v", ok.Sub(killed).Round(time.Millisecond), since(quoteAt.Load()), since(bulkAt.Load()),
		afterOK.Load(), quotes.statuses, posts.statuses)
}
