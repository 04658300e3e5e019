package edge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/datapack"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/webhooks"
)

// The benchmark's scale: issue 29's 1,000 endpoints, and the symbols a nightly rescreen moves (each
// moved symbol is one event, delivered to every endpoint: 20,000 deliveries per rescreen; more with
// BENCH_RESCREEN_MOVES).
const (
	benchEndpoints   = 1000
	benchNightlyMove = 20
)

// benchMoves is the number of constituents each timed rescreen moves: BENCH_RESCREEN_MOVES, else
// benchNightlyMove.
func benchMoves(tb testing.TB) int {
	s := os.Getenv("BENCH_RESCREEN_MOVES")
	if s == "" {
		return benchNightlyMove
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		tb.Fatalf("BENCH_RESCREEN_MOVES=%q: want a positive number", s)
	}
	return n
}

// BenchmarkSP500RescreenChangesAndDeliveries is issue 29's benchmark: events and deliveries per second
// for a rescreen of the S&P 500 with 1,000 subscribed endpoints on a local receiver. The shared data
// set is loaded over the default pack (its S&P 500, about 500 constituents); every rescreen is started
// as the scheduler starts the nightly one and runs on the in-process worker (bulk concurrency 4 and
// worker concurrency 4, the production defaults). Before the timed loop, once:
//
//   - a baseline run screens the index, and its COMPLIANT constituents are the ones to move (a debt of
//     ten times total assets fails AAOIFI's 30% debt ratio, the primary methodology);
//   - the cost of recording changes: a rescreen in which nothing moves (the data version bumped, every
//     result recomputed and stored), then one in which every compliant constituent but those kept for
//     the loop moves, then another in which nothing moves. The changes recorded are checked exactly
//     (one per moved symbol, caused by the run) and reported as events-recorded/s of the run's own time
//     (started to finished) and recording-overhead-% over the mean of the two quiet runs.
//
// Then 1,000 endpoints are created through the webhook service (20 Enterprise users with the plan's
// 50 each), filtered on the index, all pointing to one receiver on loopback (allowed by the harness's
// SHARIAH_WEBHOOK_ALLOW). Each iteration of the timed loop moves 20 other compliant constituents (a
// nightly rescreen's share; BENCH_RESCREEN_MOVES sets another number, up to all but one of them),
// rescreens, and from the run's end drives the relay (webhooks.Relay over
// the change log, as every worker runs it) until the log is read, while the worker delivers: the
// iteration ends when the receiver has every delivery. The receiver verifies every signature with
// webhooks.Verify and its endpoint's secret, the event id header against the body's id and the
// delivery id against webhooks.DeliveryID; after the iteration each endpoint must have had each of the
// iteration's change ids (read from the log) exactly once, and nothing else. Reported: deliveries/s
// (events x 1,000 over the time from the run's end to the last delivery), fanout-s (the relay's part of
// it) and nightly-rescreen-s. In production the relay polls every second during the run, so delivery
// overlaps the run; here it starts at the run's end, so the figure is the delivery path alone.
//
//	SHARIAH_DATA_DIR=../shared/data go test -run '^$' -bench SP500RescreenChangesAndDeliveries -benchtime 1x ./edge/
func BenchmarkSP500RescreenChangesAndDeliveries(b *testing.B) {
	dir := sharedData(b, datapack.PathSP500Constituents)
	e := setup(b, options{worker: true, wrap: func(s *app.Services) { s.Bulk.Concurrency = config.Defaults().BulkConcurrency }})
	ctx := context.Background()
	p, x, err := datapack.ReadAllShared(os.DirFS(dir))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := datapack.Load(ctx, e.ref, p, x, time.Now()); err != nil {
		b.Fatal(err)
	}
	e.awaitData(b)
	_, members, err := e.svc.Bulk.Indices(ctx)
	if err != nil {
		b.Fatal(err)
	}
	constituents := len(members["SP500"])

	baseline := rescreenSP500(b, e)
	compliant := compliantIn(b, e, baseline)
	moves := benchMoves(b)
	need := moves * b.N
	if len(compliant) <= need {
		b.Fatalf("%d compliant constituents: too few to move %d in the loop and some before it", len(compliant), need)
	}
	rand.New(rand.NewPCG(29, 29)).Shuffle(len(compliant), func(i, j int) { compliant[i], compliant[j] = compliant[j], compliant[i] })
	nightly, many := compliant[:need], compliant[need:]
	b.Logf("S&P 500: %d constituents, %d screened with an error, %d COMPLIANT at the baseline (run %v)",
		constituents, baseline.Errors, len(compliant), runTime(baseline).Round(time.Millisecond))

	quiet1, _ := rescreenMoving(b, e, nil)
	moved, changes := rescreenMoving(b, e, many)
	quiet2, _ := rescreenMoving(b, e, nil)
	quiet := (runTime(quiet1) + runTime(quiet2)) / 2
	b.Logf("rescreens: nothing moves %v and %v; %d move %v (%d changes recorded)", runTime(quiet1).Round(time.Millisecond),
		runTime(quiet2).Round(time.Millisecond), len(many), runTime(moved).Round(time.Millisecond), len(changes))

	rcv := newHookReceiver()
	defer rcv.srv.Close()
	createBenchEndpoints(b, e, rcv)
	relay := &webhooks.Relay{Service: e.svc.Webhooks, Source: e.svc.ChangeEvents}
	relayAll(b, relay) // the changes so far are older than the endpoints: read, not delivered

	var fanout, deliver, nightlyRuns time.Duration
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		syms := nightly[n*moves : (n+1)*moves]
		cursor := changeLogTail(b, e)
		raiseDebt(b, e, syms...)
		want := rcv.expect(moves * benchEndpoints)
		b.StartTimer()
		run := rescreenSP500(b, e)
		end := time.Now()
		relayAll(b, relay)
		fanout += time.Since(end)
		rcv.wait(b, want, 2*time.Minute+time.Duration(want)*10*time.Millisecond)
		deliver += time.Since(end)
		b.StopTimer()
		nightlyRuns += runTime(run)
		ids := checkChanges(b, changesAfter(b, e, cursor), run, syms)
		rcv.check(b, ids)
		b.StartTimer()
	}
	b.StopTimer()
	deliveries := b.N * moves * benchEndpoints
	b.Logf("timed rescreens: %d x %d symbols moved, %d deliveries verified (signature, event and delivery ids); relay fan-out %v, to the last delivery %v",
		b.N, moves, deliveries, fanout.Round(time.Millisecond), deliver.Round(time.Millisecond))
	b.ReportMetric(float64(constituents), "constituents")
	b.ReportMetric(quiet.Seconds(), "rescreen-s")
	b.ReportMetric(float64(len(changes))/runTime(moved).Seconds(), "events-recorded/s")
	b.ReportMetric(100*(runTime(moved).Seconds()/quiet.Seconds()-1), "recording-overhead-%")
	b.ReportMetric(nightlyRuns.Seconds()/float64(b.N), "nightly-rescreen-s")
	b.ReportMetric(fanout.Seconds()/float64(b.N), "fanout-s")
	b.ReportMetric(float64(deliveries)/deliver.Seconds(), "deliveries/s")
}

// rescreenSP500 runs the S&P 500 as the nightly schedule starts it and waits for it to complete.
func rescreenSP500(tb testing.TB, e *env) bulk.Run {
	tb.Helper()
	ctx := context.Background()
	r, err := e.svc.Bulk.StartRun(ctx, shariah.ServiceCaller, "SP500", 0, false, "", "schedule")
	if err != nil {
		tb.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		cur, err := e.svc.Bulk.Get(ctx, shariah.ServiceCaller, r.ID)
		if err != nil {
			tb.Fatal(err)
		}
		if cur.Finished() {
			if cur.Status != bulk.Completed || cur.StartedAt == nil || cur.FinishedAt == nil {
				tb.Fatalf("run %s: %s %s", cur.ID, cur.Status, cur.Error)
			}
			return cur
		}
		if time.Now().After(deadline) {
			tb.Fatalf("run %s still %s (%d/%d) after 5 minutes", cur.ID, cur.Status, cur.Processed, cur.Total)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runTime is a run's own time, from the worker's start to its finish (no queueing, no polling).
func runTime(r bulk.Run) time.Duration { return r.FinishedAt.Sub(*r.StartedAt) }

// compliantIn lists the constituents a run found COMPLIANT, sorted.
func compliantIn(tb testing.TB, e *env, r bulk.Run) []string {
	tb.Helper()
	_, items, err := e.svc.Bulk.Items(context.Background(), shariah.ServiceCaller, r.ID)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, it := range items {
		if it.Status == "COMPLIANT" {
			out = append(out, it.Symbol)
		}
	}
	slices.Sort(out)
	return out
}

// rescreenMoving moves the symbols (raiseDebt; none: only the data version is bumped, so every result
// is recomputed and stored and no verdict moves), rescreens the index and checks that the log
// recorded exactly one change per moved symbol, caused by the run.
func rescreenMoving(tb testing.TB, e *env, syms []string) (bulk.Run, []screening.Change) {
	tb.Helper()
	cursor := changeLogTail(tb, e)
	if len(syms) == 0 {
		if _, err := e.ref.BumpVersion(context.Background()); err != nil {
			tb.Fatal(err)
		}
		e.awaitData(tb)
	} else {
		raiseDebt(tb, e, syms...)
	}
	run := rescreenSP500(tb, e)
	cs := changesAfter(tb, e, cursor)
	checkChanges(tb, cs, run, syms)
	return run, cs
}

// checkChanges fails unless the changes are one per symbol, each caused by the run; it returns their ids.
func checkChanges(tb testing.TB, cs []screening.Change, run bulk.Run, syms []string) map[string]bool {
	tb.Helper()
	want := map[string]bool{}
	for _, s := range syms {
		want[s] = true
	}
	ids := map[string]bool{}
	for _, c := range cs {
		if !want[c.Symbol] || c.Cause.Kind != screening.CauseBulkRun || c.Cause.RunID != run.ID {
			tb.Fatalf("change %s of %s (cause %v) is not one of run %s's moved symbols", c.ID, c.Symbol, c.Cause, run.ID)
		}
		delete(want, c.Symbol)
		ids[c.ID] = true
	}
	if len(want) > 0 || len(cs) != len(syms) {
		tb.Fatalf("run %s: %d changes for %d moved symbols; no change for %v", run.ID, len(cs), len(syms), want)
	}
	return ids
}

// changeLogTail is the id of the last change recorded (screening.CursorStart when there is none).
func changeLogTail(tb testing.TB, e *env) string {
	tb.Helper()
	cursor := screening.CursorStart
	for {
		scan, err := e.svc.ChangeEvents.Log.ChangesAfter(context.Background(), cursor, 500, func(string) bool { return false })
		if err != nil {
			tb.Fatal(err)
		}
		if scan.Looked == 0 {
			return cursor
		}
		cursor = scan.Last
	}
}

// changesAfter reads every change recorded after the cursor.
func changesAfter(tb testing.TB, e *env, cursor string) []screening.Change {
	tb.Helper()
	var out []screening.Change
	for {
		scan, err := e.svc.ChangeEvents.Log.ChangesAfter(context.Background(), cursor, 500, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if scan.Looked == 0 {
			return out
		}
		out, cursor = append(out, scan.Changes...), scan.Last
	}
}

// relayAll steps the relay until it has read the whole change log.
func relayAll(tb testing.TB, r *webhooks.Relay) {
	tb.Helper()
	for {
		n, err := r.Step(context.Background(), 500)
		if err != nil {
			tb.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// createBenchEndpoints creates the benchmark's endpoints through the webhook service, as POST
// /api/webhooks does (the plan's limit checked), spread over as many Enterprise users as the plan's
// limit needs, each endpoint on the S&P 500 and with a path of its own at the receiver.
func createBenchEndpoints(tb testing.TB, e *env, rcv *hookReceiver) {
	tb.Helper()
	ctx := context.Background()
	perUser := e.svc.Webhooks.Limit(account.PlanEnterprise)
	var user string
	for i := range benchEndpoints {
		if i%perUser == 0 {
			k, err := e.keys.Create(ctx, fmt.Sprintf("hooks%d@example.com", i/perUser), account.PlanEnterprise)
			if err != nil {
				tb.Fatal(err)
			}
			user = k.Record.UserID
		}
		url := fmt.Sprintf("%s/ep/%d", rcv.srv.URL, i)
		ep, err := e.svc.Webhooks.Create(ctx, user, account.PlanEnterprise, webhooks.NewEndpoint{URL: &url, Index: "sp500"})
		if err != nil {
			tb.Fatalf("endpoint %d: %v", i, err)
		}
		rcv.add(ep)
	}
}

// hookReceiver is the benchmark's receiver: one server on loopback, endpoint i at /ep/i. Every
// delivery's signature is verified with its endpoint's secret, and its event and delivery ids checked,
// before it answers 204; what it got is counted by endpoint and event.
type hookReceiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	secrets  []string
	ids      []string       // endpoint ids, by endpoint number
	got      map[string]int // "<endpoint number> <event id>": deliveries received
	problems []string       // the first few deliveries that failed a check
	n, want  atomic.Int64   // deliveries received; the count the current wait is for
	reached  chan struct{}  // signalled when n reaches want
}

func newHookReceiver() *hookReceiver {
	r := &hookReceiver{got: map[string]int{}, reached: make(chan struct{}, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

func (r *hookReceiver) add(ep webhooks.Endpoint) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets, r.ids = append(r.secrets, ep.Secret), append(r.ids, ep.ID)
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var p struct {
		ID string `json:"id"`
	}
	if err == nil {
		err = json.Unmarshal(body, &p)
	}
	i, perr := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/ep/"))
	r.mu.Lock()
	switch {
	case err != nil || perr != nil || i < 0 || i >= len(r.secrets):
		r.problem(fmt.Sprintf("%s: %v %v", req.URL.Path, err, perr))
	default:
		if err := shariah.VerifyTimestamped(r.secrets[i], req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute); err != nil {
			r.problem(fmt.Sprintf("endpoint %d, event %s: signature: %v", i, p.ID, err))
		}
		if req.Header.Get(webhooks.EventIDHeader) != p.ID || req.Header.Get(webhooks.DeliveryIDHeader) != webhooks.DeliveryID(r.ids[i], p.ID) {
			r.problem(fmt.Sprintf("endpoint %d, event %s: headers %s=%s %s=%s", i, p.ID, webhooks.EventIDHeader,
				req.Header.Get(webhooks.EventIDHeader), webhooks.DeliveryIDHeader, req.Header.Get(webhooks.DeliveryIDHeader)))
		}
		r.got[strconv.Itoa(i)+" "+p.ID]++
	}
	r.mu.Unlock()
	if r.n.Add(1) == r.want.Load() {
		select {
		case r.reached <- struct{}{}:
		default:
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// problem notes a failed check (the caller holds mu); the receiver still answers 204, so that a bad
// delivery fails the benchmark at its check instead of being retried for a day.
func (r *hookReceiver) problem(s string) {
	if len(r.problems) < 10 {
		r.problems = append(r.problems, s)
	}
}

// expect raises the count to wait for by more deliveries and returns it.
func (r *hookReceiver) expect(more int) int64 {
	w := r.n.Load() + int64(more)
	r.want.Store(w)
	return w
}

// wait blocks until the receiver has got want deliveries in all (the one delivery that reaches the
// count signals it, so each expect is waited for once).
func (r *hookReceiver) wait(tb testing.TB, want int64, limit time.Duration) {
	tb.Helper()
	select {
	case <-r.reached:
	case <-time.After(limit):
		tb.Fatalf("%d of %d deliveries after %v", r.n.Load(), want, limit)
	}
}

// check fails on any delivery that failed its checks, and unless every endpoint has had each of the
// events once and everything received so far is one delivery per endpoint and event.
func (r *hookReceiver) check(tb testing.TB, events map[string]bool) {
	tb.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) > 0 {
		tb.Fatalf("deliveries that failed the receiver's checks: %s", strings.Join(r.problems, "; "))
	}
	for i := range r.secrets {
		for id := range events {
			if c := r.got[strconv.Itoa(i)+" "+id]; c != 1 {
				tb.Fatalf("endpoint %d got event %s %d times", i, id, c)
			}
		}
	}
	if n := r.n.Load(); int64(len(r.got)) != n || n != r.want.Load() {
		tb.Fatalf("%d deliveries received (%d expected) for %d endpoint and event pairs: some twice, or of events not moved", n, r.want.Load(), len(r.got))
	}
}
