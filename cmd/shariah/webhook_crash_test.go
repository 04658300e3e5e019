package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/jobs"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/webhooks"
)

// TestWebhookDeliverySurvivesAKilledWorker: `shariah worker` (the binary, composed as in production with
// SHARIAH_WEBHOOK_ALLOW for the test's loopback receiver) takes a delivery and is killed with SIGKILL
// while the receiver holds the request; a second worker process delivers the event, with the same id
// and a valid signature, once asynq's recoverer has taken the dead worker's task back (its lease
// expired 30 s ago: about a minute after the kill, logged).
func TestWebhookDeliverySurvivesAKilledWorker(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	ctx := context.Background()
	rc, err := sredis.Open(s.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	q, err := jobs.NewQueue(s.redisURL, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	tg, _ := webhooks.ParseAllow("127.0.0.1/32")
	hooks := &webhooks.Service{Store: sredis.NewWebhookStore(rc), Queue: q, Targets: tg, Sender: &webhooks.Sender{Targets: tg}}

	var mu sync.Mutex
	var secret string
	var answered []error // the signature check of each answered request
	held, cut := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		first := false
		once.Do(func() { first = true })
		if first { // hold the first attempt until its worker dies
			close(held)
			<-r.Context().Done()
			close(cut)
			return
		}
		mu.Lock()
		answered = append(answered, shariah.VerifyTimestamped(secret, r.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute))
		mu.Unlock()
		if r.Header.Get(webhooks.EventIDHeader) != "01JKILL0001" {
			t.Errorf("event id %q", r.Header.Get(webhooks.EventIDHeader))
		}
	}))
	defer rcv.Close()
	u := rcv.URL + "/hook"
	ep, err := hooks.Create(ctx, "crash-test", account.PlanPro, webhooks.NewEndpoint{URL: &u})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	secret = ep.Secret
	mu.Unlock()

	worker := func() func() {
		c := s.command([]string{"worker"}, "SHARIAH_WEBHOOK_ALLOW=127.0.0.1/32", "SHARIAH_RESCREEN_SCHEDULES=", "SHARIAH_LOG_LEVEL=warn")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return func() { _ = c.Process.Signal(syscall.SIGKILL); _ = c.Wait() }
	}
	kill := worker()
	defer kill()
	if n, err := hooks.FanOut(ctx, []webhooks.Event{{ID: "01JKILL0001", Time: time.Now(), Kinds: []string{screening.ChangeOverall}, Symbol: "AAPL", Ruleset: "spec"}}); err != nil || n != 1 {
		t.Fatalf("fan-out: %d %v", n, err)
	}
	select {
	case <-held:
	case <-time.After(60 * time.Second):
		t.Fatal("the worker never sent the delivery")
	}
	kill()
	killed := time.Now()
	select {
	case <-cut:
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver never saw the killed worker's connection drop")
	}
	second := s.command([]string{"worker"}, "SHARIAH_WEBHOOK_ALLOW=127.0.0.1/32", "SHARIAH_RESCREEN_SCHEDULES=", "SHARIAH_LOG_LEVEL=warn")
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = second.Process.Signal(syscall.SIGTERM); _ = second.Wait() }()
	id := webhooks.DeliveryID(ep.ID, "01JKILL0001")
	deadline := time.Now().Add(150 * time.Second)
	for {
		d, _, err := sredis.NewWebhookStore(rc).Delivery(ctx, ep.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == webhooks.StatusDelivered {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not delivered 150 s after the kill: %+v", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("delivered %v after the worker was killed", time.Since(killed).Round(100*time.Millisecond))
	mu.Lock()
	defer mu.Unlock()
	if len(answered) != 1 || answered[0] != nil {
		t.Fatalf("answered requests after the kill: %v", answered)
	}
}
