package analytics

import (
	"context"
	"testing"
	"time"
)

// fakeClock is a pacer's clock: work advances it by hand, and a rest advances it by the rest.
type fakeClock struct {
	t     time.Time
	rests []time.Duration
	ends  []time.Time // when each rest ended
}

func (c *fakeClock) pacer(window time.Duration) pacer {
	return pacer{until: c.t.Add(window), since: c.t, now: func() time.Time { return c.t },
		sleep: func(d time.Duration) { c.t = c.t.Add(d); c.rests, c.ends = append(c.rests, d), append(c.ends, c.t) }}
}

// work does n events of work taking d in all, one chunk's worth at a time.
func (c *fakeClock) work(p *pacer, n int, d time.Duration) {
	for i := 0; i < n; i += paceChunk {
		c.t = c.t.Add(d / time.Duration(n/paceChunk))
		p.step(paceChunk)
	}
}

// TestPacerRestsThreeTimesEachChunkWithinItsWindow: after each chunk the shipper rests three times as
// long as the chunk took (a quarter of one processor), and only while its window lasts.
func TestPacerRestsThreeTimesEachChunkWithinItsWindow(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)}
	p := c.pacer(500 * time.Millisecond)
	start := c.t
	c.work(&p, 10*paceChunk, 20*time.Millisecond) // 2 ms a chunk
	if len(c.rests) != 10 {
		t.Fatalf("rests %v: want one after each of 10 chunks", c.rests)
	}
	for i, r := range c.rests {
		if r != 6*time.Millisecond {
			t.Errorf("rest %d: %v, want 6ms (3 x the chunk's 2 ms)", i, r)
		}
	}
	if got := c.t.Sub(start); got != 80*time.Millisecond {
		t.Errorf("20 ms of work took %v, want 80 ms (a quarter of the time working)", got)
	}
	// Then 500 ms more of work: it rests until the window's end (500 ms from the start), the rest that
	// would cross it cut at it, and never after it.
	c.rests, c.ends = nil, nil
	c.work(&p, 250*paceChunk, 500*time.Millisecond)
	end := start.Add(500 * time.Millisecond)
	for i, e := range c.ends {
		if e.After(end) {
			t.Errorf("rest %d (%v) ended %v after the window", i, c.rests[i], e.Sub(end))
		}
	}
	if len(c.ends) == 0 {
		t.Fatal("no rest within the window")
	}
	if last := c.ends[len(c.ends)-1]; !last.Equal(end) {
		t.Errorf("the last rest ended at %v from the start, want exactly the window's end (500 ms)", last.Sub(start))
	}
	restsAtEnd := len(c.rests)
	c.work(&p, 100*paceChunk, 100*time.Millisecond)
	if len(c.rests) != restsAtEnd {
		t.Errorf("%d rests after the window ended, want none", len(c.rests)-restsAtEnd)
	}
}

// TestPacerFewerEventsThanAChunkNeverRest: a ship of a few events (a quiet edge) never waits.
func TestPacerFewerEventsThanAChunkNeverRest(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)}
	p := c.pacer(500 * time.Millisecond)
	for range paceChunk - 1 {
		c.t = c.t.Add(time.Microsecond)
		p.step(1)
	}
	if len(c.rests) != 0 {
		t.Errorf("rests %v for fewer events than a chunk", c.rests)
	}
}

// TestZeroPacerNeverRests: forced ships (Flush, shutdown) use the zero pacer.
func TestZeroPacerNeverRests(t *testing.T) {
	var p pacer
	for range 100 {
		p.step(paceChunk) // would call a nil sleep if it rested
	}
}

// TestPacerWindowIsHalfTheIntervalAtMost2s: the window is half the shipping interval, and never longer
// than paceWindowMax (rests fall inside an insert, which insertTimeout bounds).
func TestPacerWindowIsHalfTheIntervalAtMost2s(t *testing.T) {
	for _, tc := range []struct{ interval, want time.Duration }{
		{time.Second, 500 * time.Millisecond},
		{100 * time.Millisecond, 50 * time.Millisecond},
		{time.Hour, paceWindowMax},
	} {
		before := time.Now()
		p := newPacer(context.Background(), tc.interval)
		if w := p.until.Sub(p.since); w != tc.want || p.since.Before(before) {
			t.Errorf("interval %v: window %v from %v, want %v from now", tc.interval, w, p.since, tc.want)
		}
	}
	if paceWindowMax >= insertTimeout/2 {
		t.Errorf("paceWindowMax %v: want well within insertTimeout %v", paceWindowMax, insertTimeout)
	}
}

// TestPacerRestEndsWithItsContext: a shutdown (the shipper's context ended) does not wait out a rest.
func TestPacerRestEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := newPacer(ctx, time.Hour)
	cancel()
	done := make(chan struct{})
	go func() { p.sleep(time.Hour); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("a rest outlived its context")
	}
}

// TestIntervalShipsArePacedForcedShipsAreNot: the writer gives an interval's ship a pacer whose window
// is half the interval, and a forced ship (Flush, shutdown) the zero pacer, which never rests.
func TestIntervalShipsArePacedForcedShipsAreNot(t *testing.T) {
	j := testSlot(t)
	w := &UsageWriter{own: j, cfg: UsageWriterConfig{Interval: time.Second}}
	sh := &shipper{buf: make([]byte, shipBuffer)}
	ctx := context.Background()
	before := time.Now()
	if err := w.shipAll(ctx, sh, false); err != nil {
		t.Fatal(err)
	}
	if sh.pace.since.Before(before) || sh.pace.until.Sub(sh.pace.since) != 500*time.Millisecond {
		t.Errorf("an interval's ship: pacer window %v from %v, want 500ms from its start", sh.pace.until.Sub(sh.pace.since), sh.pace.since)
	}
	if err := w.shipAll(ctx, sh, true); err != nil {
		t.Fatal(err)
	}
	if !sh.pace.until.IsZero() {
		t.Errorf("a forced ship has a pacer until %v, want the zero pacer", sh.pace.until)
	}
}
