package webhooks

import (
	"context"
	"errors"
	"sync"

	"github.com/shariah-screen/shariah/catalog"
)

// matcher is an endpoint ready to match events: its symbols resolved once per fan-out (its watchlist's
// symbols as they are now, its index's constituents, its listed symbols).
type matcher struct {
	e   Endpoint
	all bool
	set map[string]bool
}

func (m matcher) matches(ev Event) bool {
	return m.e.WantsKinds(ev.Kinds) && (m.all || m.set[ev.Symbol])
}

// matchers prepares the enabled endpoints for matching. An endpoint whose watchlist was deleted
// matches through its other filters only (nothing, when the watchlist was its only one).
func (s *Service) matchers(ctx context.Context) ([]matcher, error) {
	eps, err := s.Store.AllEndpoints(ctx)
	if err != nil {
		return nil, err
	}
	var members map[string][]string
	out := make([]matcher, 0, len(eps))
	for _, e := range eps {
		if e.Disabled != nil {
			continue
		}
		m := matcher{e: e, all: e.Filter.Empty(), set: map[string]bool{}}
		for _, sym := range e.Filter.Symbols {
			m.set[sym] = true
		}
		if e.Filter.Index != "" {
			if members == nil {
				if _, members, err = catalog.ListIndices(ctx, s.Indices); err != nil {
					return nil, err
				}
			}
			for _, sym := range members[e.Filter.Index] {
				m.set[sym] = true
			}
		}
		if e.Filter.WatchlistID != "" {
			w, ok, err := s.Watchlists.Watchlist(ctx, e.UserID, e.Filter.WatchlistID)
			if err != nil {
				return nil, err
			}
			if ok {
				for _, sym := range w.Symbols {
					m.set[sym] = true
				}
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// enqueueWorkers bounds the enqueues in flight of one fan-out (each a Redis round trip).
const enqueueWorkers = 8

// FanOut delivers events to every enabled endpoint whose filter and kinds match each: it keeps each
// event's body for the retention, stores one delivery per endpoint and event (DeliveryID: derived
// from both) and queues one task per new delivery. It is idempotent: run again over the same events
// (a relay restarted before saving its cursor) it stores and queues nothing new, so no receiver gets
// an event twice from it. It returns the number of deliveries queued.
func (s *Service) FanOut(ctx context.Context, events []Event) (int, error) {
	if len(events) == 0 {
		return 0, nil
	}
	ms, err := s.matchers(ctx)
	if err != nil {
		return 0, err
	}
	now, ttl, retries := s.now(), s.retention(), s.Schedule().Retries()
	var tasks []Task
	for _, ev := range events {
		var ds []Delivery
		for _, m := range ms {
			if m.matches(ev) {
				ds = append(ds, Delivery{ID: DeliveryID(m.e.ID, ev.ID), EndpointID: m.e.ID, EventID: ev.ID, Status: StatusPending, CreatedAt: now})
			}
		}
		if len(ds) == 0 {
			continue
		}
		body, err := payloadOf(ev)
		if err != nil {
			return 0, err
		}
		if err := s.Store.PutEvent(ctx, ev.ID, body, ttl); err != nil {
			return 0, err
		}
		queue, err := s.Store.CreateDeliveries(ctx, ds, ttl)
		if err != nil {
			return 0, err
		}
		for i, d := range ds {
			if queue[i] {
				tasks = append(tasks, Task{TaskID: taskID(d), MaxRetry: retries, EndpointID: d.EndpointID, DeliveryID: d.ID})
			}
		}
	}
	return len(tasks), s.enqueue(ctx, tasks)
}

// enqueue queues the tasks, a few at a time; every failure is returned (the fan-out is retried whole:
// stored deliveries still pending are queued then).
func (s *Service) enqueue(ctx context.Context, tasks []Task) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan Task)
	for range min(enqueueWorkers, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				if err := s.Queue.EnqueueDelivery(ctx, t); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, t := range tasks {
		next <- t
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
