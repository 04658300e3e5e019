package jobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shariah-screen/shariah/webhooks"
)

// BenchmarkFanOutAndDelivery: one fan-out of events (a rescreen that moved `events` symbols) to 1,000
// endpoints subscribed to every symbol, delivered by one worker process's asynq server to a local
// receiver that answers 204 at once. Reports the fan-out's events/s (store and queue every delivery)
// and the end-to-end deliveries/s (fan-out start to the last delivery received), for a worker
// concurrency of 4 (SHARIAH_WORKER_CONCURRENCY's default) and 32.
func BenchmarkFanOutAndDelivery(b *testing.B) {
	const endpoints, events = 1000, 5
	for _, conc := range []int{4, 32} {
		b.Run(fmt.Sprintf("endpoints=%d/events=%d/concurrency=%d", endpoints, events, conc), func(b *testing.B) {
			var got atomic.Int64
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.Add(1)
				w.WriteHeader(http.StatusNoContent)
			}))
			defer rcv.Close()
			h := newHookEnv(b, nil, webhooks.Backoff{})
			ctx := context.Background()
			for i := range endpoints {
				e := webhooks.Endpoint{ID: uuid.Must(uuid.NewV7()).String(), UserID: fmt.Sprintf("user-%d", i%100), URL: rcv.URL + "/" + fmt.Sprint(i),
					Secret: webhooks.NewSecret(), CreatedAt: time.Now().UTC()}
				if err := h.store.CreateEndpoint(ctx, e, endpoints); err != nil {
					b.Fatal(err)
				}
			}
			h.startWorker(b, conc)
			var fanout, total time.Duration
			b.ResetTimer()
			for n := range b.N {
				evs := make([]webhooks.Event, events)
				for i := range evs {
					evs[i] = event(fmt.Sprintf("01JBENCH%04d%04d", n, i), "AAPL")
				}
				want := got.Load() + endpoints*events
				start := time.Now()
				queued, err := h.svc.FanOut(ctx, evs)
				if err != nil || queued != endpoints*events {
					b.Fatalf("queued %d: %v", queued, err)
				}
				fanout += time.Since(start)
				for got.Load() < want {
					time.Sleep(time.Millisecond)
				}
				total += time.Since(start)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*events)/fanout.Seconds(), "events-fanned-out/s")
			b.ReportMetric(float64(b.N*events*endpoints)/fanout.Seconds(), "deliveries-queued/s")
			b.ReportMetric(float64(b.N*events*endpoints)/total.Seconds(), "deliveries/s")
		})
	}
}
