package analytics

import (
	"context"
	"time"
)

// The shipper's work for one interval (reading the journal, parsing its lines, building and sending the
// insert's blocks: about a microsecond an event, 60 ms a second at 60,000 req/s) used to run in one
// burst. The edge has as many Go processors as cores, so for that burst its requests had one processor
// fewer: p99 at 8 connections 6-10 ms against 4 ms with shipping paused, the same with ClickHouse's
// table a Null engine or its threads at nice 19 (the burst is the edge's own, not ClickHouse's). The
// pacer spreads the work: after each chunk it rests paceRest times as long as the chunk took, so the
// shipper holds about a quarter of one processor while it ships, and it stops resting once a share of
// the interval has passed, so it never falls behind: work that does not fit the window at that pace is
// done at full speed after it. Forced ships (Flush, shutdown) never rest.
const (
	paceRest  = 3    // rest this many times the chunk's work
	paceChunk = 1024 // events (parsed lines, inserted rows) per chunk
	// paceWindowMax bounds the window (half the interval) for long intervals: rests happen inside an
	// insert (between its blocks) and must stay well within insertTimeout.
	paceWindowMax = 2 * time.Second
)

// pacer spreads one ship's work over its window. The zero pacer never rests.
type pacer struct {
	until time.Time // no rest from then on; zero: never rest
	since time.Time // when the work since the last rest began
	n     int       // events of that work

	now   func() time.Time
	sleep func(time.Duration)
}

// newPacer returns the pacer of a ship that starts now on an interval of d; its rests end early when
// ctx ends (a shutdown does not wait for them).
func newPacer(ctx context.Context, d time.Duration) pacer {
	t := time.Now()
	return pacer{until: t.Add(min(d/2, paceWindowMax)), since: t, now: time.Now, sleep: func(d time.Duration) {
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-tm.C:
		case <-ctx.Done():
		}
	}}
}

// step counts k events of work done, and rests after each chunk while the window lasts (never past
// its end).
func (p *pacer) step(k int) {
	if p.until.IsZero() {
		return
	}
	if p.n += k; p.n < paceChunk {
		return
	}
	p.n = 0
	t := p.now()
	if left := p.until.Sub(t); left > 0 {
		p.sleep(min(paceRest*t.Sub(p.since), left))
		t = p.now()
	}
	p.since = t
}
