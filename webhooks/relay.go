package webhooks

import (
	"context"
	"time"
)

// Relay follows the change stream and fans its events out (FanOut), saving its cursor after each
// batch. Any number of workers may run one: the fan-out is idempotent, so two relays over the same
// events queue each delivery once.
type Relay struct {
	Service  *Service
	Source   EventSource
	Interval time.Duration // between polls when the stream has nothing new (0: 1 s)
	Batch    int           // events per fan-out (0: 500)
}

// Run relays until ctx ends; a failed batch is tried again at the next poll (its deliveries
// already queued are not queued twice).
func (r *Relay) Run(ctx context.Context) error {
	interval, batch := r.Interval, r.Batch
	if interval <= 0 {
		interval = time.Second
	}
	if batch <= 0 {
		batch = 500
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for {
			n, err := r.Step(ctx, batch)
			if err != nil {
				r.Service.log().Error("webhook relay", "error", err.Error())
			}
			if err != nil || n < batch || ctx.Err() != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Step fans out the next batch of events after the saved cursor and saves the new cursor; it returns
// the number of events read.
func (r *Relay) Step(ctx context.Context, batch int) (int, error) {
	cursor, err := r.Service.Store.RelayCursor(ctx)
	if err != nil {
		return 0, err
	}
	evs, next, err := r.Source.EventsAfter(ctx, cursor, batch)
	if err != nil {
		return 0, err
	}
	if len(evs) > 0 {
		if _, err := r.Service.FanOut(ctx, evs); err != nil {
			return 0, err
		}
	}
	if next == "" || next == cursor {
		return len(evs), nil
	}
	return len(evs), r.Service.Store.SetRelayCursor(ctx, next)
}
