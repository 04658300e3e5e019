package webhooks

import (
	"context"
	"errors"
	"sync"

	"github.com/shariah-screen/shariah/catalog"
)

// matcher is an endpoint ready to match events: its symbols resolved once per fan-out (its watchlist's
// symbols as they are now, its index's constituents, shared by every endpoint on that index, its listed
// symbols).
type matcher struct {
	e    Endpoint
	all  bool
	sets []map[string]bool
}

func (m matcher) matches(ev Event) bool {
	if !m.e.WantsKinds(ev.Kinds) || ev.Time.Before(m.e.CreatedAt) {
		return false // a change before the endpoint existed is not its (a relay catching up)
	}
	if m.all {
		return true
	}
	for _, set := range m.sets {
		if set[ev.Symbol] {
			return true
		}
	}
	return false
}

func setOf(syms []string) map[string]bool {
	set := make(map[string]bool, len(syms))
	for _, s := range syms {
		set[s] = true
	}
	return set
}

// matchers prepares the enabled endpoints for matching. An endpoint whose watchlist was deleted
// matches through its other filters only (nothing, when the watchlist was its only one).
func (s *Service) matchers(ctx context.Context) ([]matcher, error) {
	eps, err := s.Store.AllEndpoints(ctx)
	if err != nil {
		return nil, err
	}
	var members map[string][]string
	indexSets := map[string]map[string]bool{}
	out := make([]matcher, 0, len(eps))
	for _, e := range eps {
		if e.Disabled != nil {
			continue
		}
		m := matcher{e: e, all: e.Filter.Empty()}
		if len(e.Filter.Symbols) > 0 {
			m.sets = append(m.sets, setOf(e.Filter.Symbols))
		}
		if ix := e.Filter.Index; ix != "" {
			if members == nil {
				if _, members, err = catalog.ListIndices(ctx, s.Indices); err != nil {
					return nil, err
				}
			}
			if indexSets[ix] == nil {
				indexSets[ix] = setOf(members[ix])
			}
			m.sets = append(m.sets, indexSets[ix])
		}
		if e.Filter.WatchlistID != "" {
			w, ok, err := s.Watchlists.Watchlist(ctx, e.UserID, e.Filter.WatchlistID)
			if err != nil {
				return nil, err
			}
			if ok {
				m.sets = append(m.sets, setOf(w.Symbols))
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
