package jobs_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testcheck"
	"github.com/shariah-screen/shariah/jobs"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/webhooks"
)

// hookEnv is a test's webhooks: a Redis of its own with the default pack, the service over the real
// store and queue, and (once started) an asynq worker delivering through them.
type hookEnv struct {
	url   string
	rc    rueidis.Client
	store *sredis.WebhookStore
	q     *jobs.Queue
	svc   *webhooks.Service
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// shortBackoff retries after 10, 20, 40, 40, ... ms: the production schedule's shape in milliseconds.
var shortBackoff = webhooks.Backoff{First: 10 * time.Millisecond, Max: 40 * time.Millisecond, Window: time.Second}

func newHookEnv(t testing.TB, tg *webhooks.Targets, backoff webhooks.Backoff) *hookEnv {
	t.Helper()
	srv, rc := redistest.StartWithDefaultPack(t)
	q, err := jobs.NewQueue(srv.RedisURL(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	if tg == nil {
		tg = loopbackTargets(t)
	}
	ref := sredis.NewRefStore(rc)
	st := sredis.NewWebhookStore(rc)
	svc := &webhooks.Service{Store: st, Queue: q, Targets: tg, Sender: &webhooks.Sender{Targets: tg, Timeout: 2 * time.Second},
		Watchlists: sredis.NewWatchlistStore(rc), Indices: ref, Resolve: (&catalog.Cache{Store: ref}).Resolve,
		Backoff: backoff, Log: quiet}
	return &hookEnv{url: srv.RedisURL(), rc: rc, store: st, q: q, svc: svc}
}

func loopbackTargets(t testing.TB) *webhooks.Targets {
	tg, err := webhooks.ParseAllow("127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// startWorker runs a worker of the test's own over the env's Redis until the test ends.
func (h *hookEnv) startWorker(t testing.TB, concurrency int) {
	t.Helper()
	srv, mux, err := jobs.NewWorkerWith(h.url, false, jobs.WorkerOptions{Concurrency: concurrency,
		WebhookBackoff: h.svc.Schedule(), PollInterval: 20 * time.Millisecond}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	jobs.RegisterWebhooks(mux, h.svc)
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
}

func (h *hookEnv) create(t testing.TB, user, url string, symbols ...string) webhooks.Endpoint {
	t.Helper()
	u := url
	e, err := h.svc.Create(context.Background(), user, account.PlanPro, webhooks.NewEndpoint{URL: &u, Symbols: symbols})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// delivery reads a delivery of an event to an endpoint.
func (h *hookEnv) delivery(t testing.TB, ep, ev string) webhooks.Delivery {
	t.Helper()
	d, _, err := h.store.Delivery(context.Background(), ep, webhooks.DeliveryID(ep, ev))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// hit is one request a receiver got.
type hit struct {
	eventID, attempt string
	body             []byte
	verified         error // the documented signature rule, applied by the receiver
	answered         int
}

// receiver is a real HTTP receiver on loopback. answer decides the status of the n-th request (from
// 1) of an event; the secret is set once the endpoint exists.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	hits   []hit
	answer func(eventID string, n int) int
	seen   chan struct{} // a value per request
}

func newReceiver(t testing.TB, answer func(eventID string, n int) int) *receiver {
	return newReceiverWith(t, answer, nil)
}

// newReceiverWith is newReceiver with a handler that sees every request first and may take it (true).
func newReceiverWith(t testing.TB, answer func(eventID string, n int) int, intercept func(w http.ResponseWriter, r *http.Request) bool) *receiver {
	r := &receiver{answer: answer, seen: make(chan struct{}, 100000)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if intercept == nil || !intercept(w, req) {
			r.serve(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id := req.Header.Get(webhooks.EventIDHeader)
	r.mu.Lock()
	n := 1
	for _, h := range r.hits {
		if h.eventID == id {
			n++
		}
	}
	status := 200
	if r.answer != nil {
		status = r.answer(id, n)
	}
	r.hits = append(r.hits, hit{eventID: id, attempt: req.Header.Get(webhooks.AttemptHeader), body: body, answered: status,
		verified: shariah.VerifyTimestamped(r.secret, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute)})
	r.mu.Unlock()
	w.WriteHeader(status)
	r.seen <- struct{}{}
}

func (r *receiver) setSecret(s string) { r.mu.Lock(); r.secret = s; r.mu.Unlock() }

func (r *receiver) got() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// waitUntil polls cond until it holds or the timeout passes (then the test fails naming what).
func waitUntil(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	testcheck.WaitFor(t, timeout, what, cond)
}

func event(id, symbol string, kinds ...string) webhooks.Event {
	if len(kinds) == 0 {
		kinds = []string{screening.ChangeOverall}
	}
	body, _ := json.Marshal(map[string]any{"id": id, "symbol": symbol, "before": map[string]string{"overall": "COMPLIANT"},
		"after": map[string]string{"overall": "NON_COMPLIANT"}})
	return webhooks.Event{ID: id, Time: time.Now().UTC(), Kinds: kinds, Symbol: symbol, Ruleset: "spec", Body: body}
}

// TestTwoEventsTwoSignedDeliveries: two events on an endpoint's symbols are two deliveries, each
// signed by the documented rule and carrying its event; an event on another symbol or of a kind the
// endpoint did not ask for is not sent to it; the same fan-out again sends nothing.
func TestTwoEventsTwoSignedDeliveries(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, webhooks.Backoff{})
	rcv, other := newReceiver(t, nil), newReceiver(t, nil)
	ep := h.create(t, "alice", rcv.URL+"/hooks", "AAPL", "MSFT")
	rcv.setSecret(ep.Secret)
	u := other.URL + "/source-only"
	ko, err := h.svc.Create(context.Background(), "bob", account.PlanStarter, webhooks.NewEndpoint{URL: &u, Symbols: []string{"ko"}, Kinds: []string{screening.ChangeDataSource}})
	if err != nil {
		t.Fatal(err)
	}
	h.startWorker(t, 4)
	events := []webhooks.Event{event("01JEV0001", "AAPL"), event("01JEV0002", "MSFT", screening.ChangeOverall, screening.ChangeMethodology),
		event("01JEV0003", "KO"), event("01JEV0004", "JNJ", screening.ChangeDataSource)}
	n, err := h.svc.FanOut(context.Background(), events)
	if err != nil || n != 2 {
		t.Fatalf("fan-out queued %d: %v", n, err)
	}
	waitUntil(t, "two deliveries delivered", 10*time.Second, func() bool {
		return h.delivery(t, ep.ID, "01JEV0001").Status == webhooks.StatusDelivered && h.delivery(t, ep.ID, "01JEV0002").Status == webhooks.StatusDelivered
	})
	hits := rcv.got()
	if len(hits) != 2 {
		t.Fatalf("%d requests, want 2", len(hits))
	}
	for _, hi := range hits {
		if hi.verified != nil {
			t.Fatalf("%s: signature: %v", hi.eventID, hi.verified)
		}
		var p webhooks.Payload
		if err := json.Unmarshal(hi.body, &p); err != nil || p.ID != hi.eventID || p.Type != webhooks.TypeChange || p.Ruleset != "spec" {
			t.Fatalf("payload %s: %+v %v", hi.body, p, err)
		}
		var data map[string]any
		if err := json.Unmarshal(p.Data, &data); err != nil || data["id"] != p.ID || data["symbol"] != p.Symbol {
			t.Fatalf("data %s: %v", p.Data, err)
		}
	}
	if len(other.got()) != 0 {
		t.Fatalf("the source-only endpoint on KO got %d requests", len(other.got()))
	}
	if d := h.delivery(t, ko.ID, "01JEV0003"); d.ID != "" {
		t.Fatalf("a verdict event was stored for a source-only endpoint: %+v", d)
	}
	// The same events again (a relay restarted before saving its cursor): nothing new.
	if n, err := h.svc.FanOut(context.Background(), events); err != nil || n != 0 {
		t.Fatalf("second fan-out queued %d: %v", n, err)
	}
	list, err := h.svc.Deliveries(context.Background(), "alice", account.PlanPro, ep.ID, 50)
	if err != nil || len(list) != 2 || list[0].Attempts != 1 || list[0].LastStatus != 200 {
		t.Fatalf("deliveries %+v %v", list, err)
	}
}

// TestAFailingReceiverGetsEachEventOnceMore: a receiver that fails three times per event and then
// recovers gets each event four times with the same event id and body, answers one 2xx per event,
// and the deliveries read delivered after four attempts.
func TestAFailingReceiverGetsEachEventOnceMore(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, shortBackoff)
	rcv := newReceiver(t, func(_ string, n int) int {
		if n <= 3 {
			return 500
		}
		return 200
	})
	ep := h.create(t, "alice", rcv.URL, "AAPL", "MSFT")
	rcv.setSecret(ep.Secret)
	h.startWorker(t, 4)
	if n, err := h.svc.FanOut(context.Background(), []webhooks.Event{event("01JEV0101", "AAPL"), event("01JEV0102", "MSFT")}); err != nil || n != 2 {
		t.Fatalf("fan-out: %d %v", n, err)
	}
	for _, ev := range []string{"01JEV0101", "01JEV0102"} {
		waitUntil(t, ev+" delivered", 20*time.Second, func() bool { return h.delivery(t, ep.ID, ev).Status == webhooks.StatusDelivered })
		d := h.delivery(t, ep.ID, ev)
		if d.Attempts != 4 || d.LastStatus != 200 || d.LastError != "" || d.NextTry != nil {
			t.Fatalf("%s: %+v", ev, d)
		}
	}
	byEvent := map[string][]hit{}
	for _, hi := range rcv.got() {
		byEvent[hi.eventID] = append(byEvent[hi.eventID], hi)
	}
	for ev, hits := range byEvent {
		if len(hits) != 4 {
			t.Fatalf("%s: %d requests, want 4", ev, len(hits))
		}
		ok := 0
		for i, hi := range hits {
			if hi.verified != nil || string(hi.body) != string(hits[0].body) || hi.attempt != strconv.Itoa(i+1) {
				t.Fatalf("%s request %d: attempt %s, %v, body changed: %v", ev, i+1, hi.attempt, hi.verified, string(hi.body) != string(hits[0].body))
			}
			if hi.answered == 200 {
				ok++
			}
		}
		if ok != 1 {
			t.Fatalf("%s: %d 2xx answers", ev, ok)
		}
	}
	if len(byEvent) != 2 {
		t.Fatalf("events received: %v", byEvent)
	}
	if e, _, _ := h.store.Endpoint(context.Background(), "", ep.ID); e.Disabled != nil {
		t.Fatalf("recovered endpoint disabled: %+v", e.Disabled)
	}
}

// TestGoneDisablesTheEndpoint: a 410 fails the delivery without retries and disables the endpoint;
// later events are not sent to it; a successful test event enables it again.
func TestGoneDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, shortBackoff)
	var mu sync.Mutex
	status := 410
	rcv := newReceiver(t, func(string, int) int { mu.Lock(); defer mu.Unlock(); return status })
	ep := h.create(t, "alice", rcv.URL, "AAPL")
	h.startWorker(t, 2)
	if _, err := h.svc.FanOut(context.Background(), []webhooks.Event{event("01JEV0201", "AAPL")}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the 410 recorded", 10*time.Second, func() bool { return h.delivery(t, ep.ID, "01JEV0201").Status == webhooks.StatusFailed })
	if d := h.delivery(t, ep.ID, "01JEV0201"); d.Attempts != 1 || d.LastStatus != 410 {
		t.Fatalf("%+v", d)
	}
	got, err := h.svc.Get(context.Background(), "alice", account.PlanPro, ep.ID)
	if err != nil || got.Disabled == nil || !strings.Contains(got.Disabled.Reason, "410") || got.Served(false).Enabled {
		t.Fatalf("after 410: %+v %v", got.Disabled, err)
	}
	if n, err := h.svc.FanOut(context.Background(), []webhooks.Event{event("01JEV0202", "AAPL")}); err != nil || n != 0 {
		t.Fatalf("fan-out to a disabled endpoint queued %d: %v", n, err)
	}
	mu.Lock()
	status = 204
	mu.Unlock()
	res, err := h.svc.Test(context.Background(), "alice", account.PlanPro, ep.ID)
	if err != nil || res.Status != 204 || res.Delivery.Status != webhooks.StatusDelivered {
		t.Fatalf("test event: %+v %v", res, err)
	}
	if got, _ := h.svc.Get(context.Background(), "alice", account.PlanPro, ep.ID); got.Disabled != nil {
		t.Fatalf("still disabled after a delivered test: %+v", got.Disabled)
	}
	if len(rcv.got()) != 2 {
		t.Fatalf("%d requests, want the 410 and the test", len(rcv.got()))
	}
}

// TestAnEndpointThatKeepsFailingIsDisabled: deliveries exhausting their retries in a row disable an
// endpoint (the streak rule), as does failing on every attempt for DisableAfter (the time rule); its
// queued deliveries are cancelled, not sent.
func TestAnEndpointThatKeepsFailingIsDisabled(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, webhooks.Backoff{First: 5 * time.Millisecond, Max: 5 * time.Millisecond, Window: 15 * time.Millisecond})
	h.svc.DisableStreak = 2
	rcv := newReceiver(t, func(string, int) int { return 500 })
	ep := h.create(t, "alice", rcv.URL, "AAPL")
	h.startWorker(t, 1)
	for _, ev := range []string{"01JEV0301", "01JEV0302"} {
		if _, err := h.svc.FanOut(context.Background(), []webhooks.Event{event(ev, "AAPL")}); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, ev+" failed", 10*time.Second, func() bool { return h.delivery(t, ep.ID, ev).Status == webhooks.StatusFailed })
		if d := h.delivery(t, ep.ID, ev); d.Attempts != 4 || d.LastError != "HTTP 500" {
			t.Fatalf("%s: %+v", ev, d)
		}
	}
	got, _ := h.svc.Get(context.Background(), "alice", account.PlanPro, ep.ID)
	if got.Disabled == nil || !strings.Contains(got.Disabled.Reason, "2 deliveries in a row failed after every retry (last: HTTP 500)") {
		t.Fatalf("after two exhausted deliveries: %+v", got.Disabled)
	}

	// The time rule, with DisableAfter shortened: the first failure starts the clock, a later one past it disables.
	h2 := newHookEnv(t, nil, webhooks.Backoff{First: 20 * time.Millisecond, Max: 20 * time.Millisecond, Window: time.Minute})
	h2.svc.DisableAfter = 10 * time.Millisecond
	ep2 := h2.create(t, "carol", rcv.URL, "AAPL", "MSFT")
	h2.startWorker(t, 1)
	if _, err := h2.svc.FanOut(context.Background(), []webhooks.Event{event("01JEV0303", "AAPL")}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the time rule", 10*time.Second, func() bool {
		e, _, _ := h2.store.Endpoint(context.Background(), "", ep2.ID)
		return e.Disabled != nil
	})
	if d := h2.delivery(t, ep2.ID, "01JEV0303"); d.Status != webhooks.StatusFailed || d.Attempts != 2 {
		t.Fatalf("%+v", d)
	}
	e, _, _ := h2.store.Endpoint(context.Background(), "", ep2.ID)
	if !strings.HasPrefix(e.Disabled.Reason, "every delivery failed since ") {
		t.Fatalf("reason %q", e.Disabled.Reason)
	}
}

// TestRefusedAtDeliveryWhenDNSChanges: a name that resolved to a public address when the endpoint was
// created and resolves to loopback, a private address or the metadata address at delivery time is
// refused at connect time, attempt after attempt; nothing ever connects to the listener there.
func TestRefusedAtDeliveryWhenDNSChanges(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepts sync.WaitGroup
	accepted := 0
	var mu sync.Mutex
	accepts.Add(1)
	go func() {
		defer accepts.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	resolvesTo := "93.184.216.34"
	tg := &webhooks.Targets{Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		return []netip.Addr{netip.MustParseAddr(resolvesTo)}, nil
	}}
	h := newHookEnv(t, tg, webhooks.Backoff{First: 20 * time.Millisecond, Max: 20 * time.Millisecond, Window: time.Minute})
	ep := h.create(t, "alice", "https://hooks.example.com:"+port+"/in", "AAPL")
	h.startWorker(t, 1)
	if _, err := h.svc.FanOut(context.Background(), []webhooks.Event{event("01JEV0401", "AAPL")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ip, want string }{
		{"127.0.0.1", "refused address 127.0.0.1 (loopback)"},
		{"10.0.0.1", "refused address 10.0.0.1 (private)"},
		{"169.254.169.254", "refused address 169.254.169.254 (metadata)"},
	} {
		mu.Lock()
		resolvesTo = c.ip
		mu.Unlock()
		waitUntil(t, c.want, 10*time.Second, func() bool { return h.delivery(t, ep.ID, "01JEV0401").LastError == c.want })
		if d := h.delivery(t, ep.ID, "01JEV0401"); d.Status != webhooks.StatusRetrying || d.NextTry == nil {
			t.Fatalf("%+v", d)
		}
	}
	ln.Close()
	accepts.Wait()
	if accepted != 0 {
		t.Fatalf("%d connections reached the listener", accepted)
	}
}

// TestWorkerKilledMidDeliveryLosesNothing: a worker process (this test binary as a worker) is killed
// with SIGKILL while its delivery waits for the receiver's answer. asynq v0.26.0 keeps the task in its
// active set under the dead worker's lease (30 s, extended by heartbeats that stopped); a live worker's
// recoverer (at its start, then every minute) retries a task whose lease expired at least 30 s ago,
// and the webhook retry delay after a lost lease is a second. So the event arrives, with the same
// event id, within about 60-70 s of the kill (the figure is logged), and the delivery reads delivered.
func TestWorkerKilledMidDeliveryLosesNothing(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, webhooks.Backoff{})
	first := make(chan struct{})
	var once sync.Once
	cut := make(chan struct{})
	rcv := newReceiverWith(t, nil, func(w http.ResponseWriter, r *http.Request) bool {
		held := false
		once.Do(func() {
			// the first attempt: hold it until its worker dies and the connection drops (the server
			// notices a dropped connection once the request body has been read)
			_, _ = io.ReadAll(r.Body)
			close(first)
			<-r.Context().Done()
			close(cut)
			held = true
		})
		return held
	})
	ep := h.create(t, "alice", rcv.URL, "AAPL")
	rcv.setSecret(ep.Secret)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childWorkerEnv+"="+h.url)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	if _, err := h.svc.FanOut(context.Background(), []webhooks.Event{event("01JEV0501", "AAPL")}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker process never sent the delivery")
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	_ = child.Wait()
	select { // the receiver saw the dead worker's connection drop: that attempt got no answer
	case <-cut:
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver never saw the dead worker's connection drop")
	}
	taskID := "webhook:" + webhooks.DeliveryID(ep.ID, "01JEV0501")
	info, err := h.q.Inspector.GetTaskInfo("webhooks", taskID)
	if err != nil || info.State.String() != "active" {
		t.Fatalf("the dead worker's task: %+v %v", info, err)
	}
	if d := h.delivery(t, ep.ID, "01JEV0501"); d.Status != webhooks.StatusPending || d.Attempts != 0 {
		t.Fatalf("before the recovery: %+v", d)
	}
	h.startWorker(t, 1) // a live worker: its recoverer takes the task over
	waitUntil(t, "the delivery after the kill", 150*time.Second, func() bool {
		return h.delivery(t, ep.ID, "01JEV0501").Status == webhooks.StatusDelivered
	})
	t.Logf("delivered %v after the worker was killed", time.Since(killed).Round(100*time.Millisecond))
	hits := rcv.got()
	if len(hits) != 1 || hits[0].eventID != "01JEV0501" || hits[0].verified != nil || hits[0].answered != 200 {
		t.Fatalf("after the recovery: %+v", hits)
	}
	if d := h.delivery(t, ep.ID, "01JEV0501"); d.Attempts != 1 || d.LastStatus != 200 {
		t.Fatalf("%+v", d)
	}
}

// listSource is an event stream held in memory (webhooks.EventSource), for the relay's own test; the
// change log itself is read through webhooks.ChangeStream (edge: TestARescreenIsDeliveredToWebhooks).
type listSource struct {
	mu     sync.Mutex
	events []webhooks.Event
}

func (s *listSource) EventsAfter(_ context.Context, cursor string, limit int) ([]webhooks.Event, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []webhooks.Event
	next := cursor
	for _, e := range s.events {
		if e.ID > cursor && len(out) < limit {
			out = append(out, e)
			next = e.ID
		}
	}
	return out, next, nil
}

// TestRelayFollowsTheStream: the relay fans out what the stream has after its saved cursor, a batch at
// a time, and saves the cursor; events appended later are fanned out by the next step, earlier ones
// never again.
func TestRelayFollowsTheStream(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, webhooks.Backoff{})
	rcv := newReceiver(t, nil)
	ep := h.create(t, "alice", rcv.URL, "AAPL", "MSFT")
	src := &listSource{events: []webhooks.Event{event("01JEV0601", "AAPL"), event("01JEV0602", "KO"), event("01JEV0603", "MSFT")}}
	relay := &webhooks.Relay{Service: h.svc, Source: src}
	ctx := context.Background()
	if n, err := relay.Step(ctx, 2); err != nil || n != 2 {
		t.Fatalf("first batch: %d %v", n, err)
	}
	if cur, _ := h.store.RelayCursor(ctx); cur != "01JEV0602" {
		t.Fatalf("cursor %q", cur)
	}
	if n, err := relay.Step(ctx, 2); err != nil || n != 1 {
		t.Fatalf("second batch: %d %v", n, err)
	}
	if n, err := relay.Step(ctx, 2); err != nil || n != 0 {
		t.Fatalf("nothing new: %d %v", n, err)
	}
	src.mu.Lock()
	src.events = append(src.events, event("01JEV0604", "AAPL"))
	src.mu.Unlock()
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		done <- (&webhooks.Relay{Service: h.svc, Source: src, Interval: 10 * time.Millisecond}).Run(rctx)
	}()
	h.startWorker(t, 2)
	waitUntil(t, "three deliveries", 10*time.Second, func() bool { return len(rcv.got()) == 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"01JEV0601", "01JEV0603", "01JEV0604"} {
		waitUntil(t, ev+" delivered", 10*time.Second, func() bool { return h.delivery(t, ep.ID, ev).Status == webhooks.StatusDelivered })
	}
	if len(rcv.got()) != 3 {
		t.Fatalf("%d requests", len(rcv.got()))
	}
}

// TestASlowReceiverHoldsNothingElse: a receiver that never answers costs its delivery the timeout and a
// retry; another endpoint's delivery goes meanwhile. A delivery whose endpoint is deleted while it
// waits for its retry is cancelled, not sent.
func TestASlowReceiverHoldsNothingElse(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, webhooks.Backoff{First: 100 * time.Millisecond, Max: 100 * time.Millisecond, Window: time.Hour})
	h.svc.Sender.Timeout = 500 * time.Millisecond
	release := make(chan struct{})
	var slowHits sync.WaitGroup
	slowHits.Add(1)
	var once sync.Once
	slow := newReceiverWith(t, nil, func(w http.ResponseWriter, r *http.Request) bool {
		once.Do(slowHits.Done)
		_, _ = io.ReadAll(r.Body) // so the server notices the sender hanging up
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	t.Cleanup(func() { close(release) }) // before the receiver's Close (cleanups run last first)
	fast := newReceiver(t, nil)
	slowEP := h.create(t, "alice", slow.URL, "AAPL")
	fastEP := h.create(t, "bob", fast.URL, "AAPL")
	h.startWorker(t, 4)
	if n, err := h.svc.FanOut(context.Background(), []webhooks.Event{event("01JEV0701", "AAPL")}); err != nil || n != 2 {
		t.Fatalf("fan-out: %d %v", n, err)
	}
	slowHits.Wait()
	waitUntil(t, "the fast endpoint's delivery", 10*time.Second, func() bool {
		return h.delivery(t, fastEP.ID, "01JEV0701").Status == webhooks.StatusDelivered
	})
	if d := h.delivery(t, slowEP.ID, "01JEV0701"); d.Status == webhooks.StatusDelivered {
		t.Fatalf("slow delivery %+v", d)
	}
	waitUntil(t, "the slow delivery timed out", 10*time.Second, func() bool {
		d := h.delivery(t, slowEP.ID, "01JEV0701")
		return d.Status == webhooks.StatusRetrying && d.LastError == "timed out"
	})
	if err := h.svc.Delete(context.Background(), "alice", account.PlanPro, slowEP.ID); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the slow delivery cancelled", 10*time.Second, func() bool {
		d := h.delivery(t, slowEP.ID, "01JEV0701")
		return d.Status == webhooks.StatusCancelled && d.LastError == "the endpoint was deleted"
	})
}

// TestFiltersByWatchlistAndIndex: an endpoint on a watchlist gets the changes of the watchlist's symbols
// as they are when the change happens (a symbol added later too); one on an index those of its
// constituents. (The store takes the watchlist's symbols as given: made-up ones are in no index.)
func TestFiltersByWatchlistAndIndex(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, webhooks.Backoff{})
	ctx := context.Background()
	wls := sredis.NewWatchlistStore(h.rc)
	w := account.Watchlist{ID: "0190a0c0-0000-7000-8000-00000000c001", Name: "Mine", Symbols: []string{"ZZLISTED1"}, CreatedAt: time.Now().UTC()}
	if err := wls.CreateWatchlist(ctx, "carol", w, 10); err != nil {
		t.Fatal(err)
	}
	_, members, err := catalog.ListIndices(ctx, sredis.NewRefStore(h.rc))
	if err != nil || len(members["DJIA"]) == 0 {
		t.Fatalf("DJIA constituents: %v", err)
	}
	inDJIA := members["DJIA"][0]
	u, v := "http://127.0.0.1:1/w", "http://127.0.0.1:1/i"
	byList, err := h.svc.Create(ctx, "carol", account.PlanPro, webhooks.NewEndpoint{URL: &u, WatchlistID: w.ID})
	if err != nil {
		t.Fatal(err)
	}
	byIndex, err := h.svc.Create(ctx, "carol", account.PlanPro, webhooks.NewEndpoint{URL: &v, Index: "djia"})
	if err != nil || byIndex.Filter.Index != "DJIA" {
		t.Fatalf("%+v %v", byIndex, err)
	}
	stored := func(ep, ev string) bool { return h.delivery(t, ep, ev).ID != "" }
	if _, err := h.svc.FanOut(ctx, []webhooks.Event{event("01JEV0801", "ZZLISTED1"), event("01JEV0802", "ZZZNOTINDJIA"), event("01JEV0803", inDJIA)}); err != nil {
		t.Fatal(err)
	}
	if err := wls.AddSymbol(ctx, "carol", w.ID, "ZZLISTED2", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.FanOut(ctx, []webhooks.Event{event("01JEV0804", "ZZLISTED2")}); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, ev := range []string{"01JEV0801", "01JEV0802", "01JEV0803", "01JEV0804"} {
		got["list "+ev], got["index "+ev] = stored(byList.ID, ev), stored(byIndex.ID, ev)
	}
	want := map[string]bool{"list 01JEV0801": true, "list 01JEV0804": true, "index 01JEV0803": true}
	for k, v := range got {
		if v != want[k] {
			t.Errorf("%s: stored %v", k, v)
		}
	}
}

// TestAStuckDeliveryCanBeReplayed: a delivery left retrying by a lost task (archived by asynq) is 409 to
// replay while it may still be in flight, and replayable (and delivered) once an hour past its due time.
func TestAStuckDeliveryCanBeReplayed(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil, webhooks.Backoff{})
	rcv := newReceiver(t, nil)
	ep := h.create(t, "alice", rcv.URL, "AAPL")
	ctx := context.Background()
	ev := event("01JEV0901", "AAPL")
	if err := h.store.PutEvent(ctx, ev.ID, []byte(`{"id":"01JEV0901"}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	due := time.Now().UTC().Add(-10 * time.Minute)
	d := webhooks.Delivery{ID: webhooks.DeliveryID(ep.ID, ev.ID), EndpointID: ep.ID, EventID: ev.ID, Status: webhooks.StatusRetrying,
		Attempts: 3, NextTry: &due, CreatedAt: due.Add(-time.Hour)}
	if _, err := h.store.CreateDeliveries(ctx, []webhooks.Delivery{d}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Replay(ctx, "alice", account.PlanPro, ep.ID, d.ID); shariah.ErrorCode(err) != shariah.ECONFLICT {
		t.Fatalf("replay 10 minutes past due: %v", err)
	}
	h.svc.Now = func() time.Time { return due.Add(webhooks.StuckAfter + time.Minute) }
	if got, err := h.svc.Replay(ctx, "alice", account.PlanPro, ep.ID, d.ID); err != nil || got.Status != webhooks.StatusPending || got.Replays != 1 {
		t.Fatalf("replay of a stuck delivery: %+v %v", got, err)
	}
	h.startWorker(t, 1)
	waitUntil(t, "the replayed delivery", 10*time.Second, func() bool { return h.delivery(t, ep.ID, ev.ID).Status == webhooks.StatusDelivered })
	if hits := rcv.got(); len(hits) != 1 || hits[0].eventID != ev.ID {
		t.Fatalf("%+v", hits)
	}
}
