package webhooks_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/webhooks"
)

// loopback allows the tests' receivers on 127.0.0.1 (as SHARIAH_WEBHOOK_ALLOW would).
func loopback(t *testing.T) *webhooks.Targets {
	t.Helper()
	tg, err := webhooks.ParseAllow("127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestSenderSignsAndClassifies(t *testing.T) {
	t.Parallel()
	headers := make(chan http.Header, 10)
	var status atomic.Int32
	status.Store(200)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		w.WriteHeader(int(status.Load()))
	}))
	defer rcv.Close()
	s := &webhooks.Sender{Targets: loopback(t)}
	body := []byte(`{"id":"ev1"}`)
	now := time.Now()
	res := s.Send(context.Background(), rcv.URL, "whsec_x", body, "ev1", "dlv_1", 2, now)
	if !res.OK() || res.Err != "" {
		t.Fatalf("%+v", res)
	}
	got := <-headers
	if err := shariah.VerifyTimestamped("whsec_x", got.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	if got.Get(webhooks.EventIDHeader) != "ev1" || got.Get(webhooks.DeliveryIDHeader) != "dlv_1" || got.Get(webhooks.AttemptHeader) != "2" {
		t.Fatalf("headers %v", got)
	}
	status.Store(410)
	if res := s.Send(context.Background(), rcv.URL, "whsec_x", body, "ev1", "dlv_1", 3, now); !res.Gone() || res.Err != "HTTP 410" {
		t.Fatalf("410: %+v", res)
	}
	status.Store(503)
	if res := s.Send(context.Background(), rcv.URL, "whsec_x", body, "ev1", "dlv_1", 4, now); res.OK() || res.Err != "HTTP 503" {
		t.Fatalf("503: %+v", res)
	}
}

// TestSenderFollowsNoRedirect: a 3xx is a failed attempt; its target (here the metadata address) is
// never fetched.
func TestSenderFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	defer rcv.Close()
	s := &webhooks.Sender{Targets: loopback(t)}
	res := s.Send(context.Background(), rcv.URL, "k", []byte("{}"), "e", "d", 1, time.Now())
	if res.OK() || res.Status != 302 || !strings.Contains(res.Err, "redirect not followed") || hits.Load() != 1 {
		t.Fatalf("%+v after %d requests", res, hits.Load())
	}
}

// TestSenderBoundsTheReceiver: an endless answer is read up to 64 KB and dropped, long before the
// timeout; a receiver that never answers is cut at the timeout; neither holds the sender longer.
func TestSenderBoundsTheReceiver(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var written atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(200)
		chunk := []byte(strings.Repeat("x", 32<<10))
		for { // endless: until the sender hangs up
			if _, err := w.Write(chunk); err != nil {
				return
			}
			written.Add(int64(len(chunk)))
			w.(http.Flusher).Flush()
		}
	}))
	defer rcv.Close()
	defer close(release)
	s := &webhooks.Sender{Targets: loopback(t), Timeout: 3 * time.Second}
	res := s.Send(context.Background(), rcv.URL+"/huge", "k", []byte("{}"), "e", "d", 1, time.Now())
	if !res.OK() || res.Duration >= 3*time.Second {
		t.Fatalf("endless body: %+v", res)
	}
	fast := &webhooks.Sender{Targets: loopback(t), Timeout: 300 * time.Millisecond}
	res = fast.Send(context.Background(), rcv.URL+"/slow", "k", []byte("{}"), "e", "d", 1, time.Now())
	if res.OK() || res.Status != 0 || res.Err != "timed out" || res.Duration < 300*time.Millisecond || res.Duration > 3*time.Second {
		t.Fatalf("slow receiver: %+v", res)
	}
	t.Logf("endless body: answered 2xx, %d KB written by the receiver before the sender hung up", written.Load()>>10)
}

// TestSenderRefusesWithoutTheAllowList: the same loopback receiver, without the operator's list, is
// never connected to.
func TestSenderRefusesWithoutTheAllowList(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer rcv.Close()
	s := &webhooks.Sender{Targets: &webhooks.Targets{}}
	res := s.Send(context.Background(), rcv.URL, "k", []byte("{}"), "e", "d", 1, time.Now())
	if res.OK() || res.Err != "refused address 127.0.0.1 (loopback)" || hits.Load() != 0 {
		t.Fatalf("%+v, %d requests", res, hits.Load())
	}
}
