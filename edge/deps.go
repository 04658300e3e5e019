package edge

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// The dependencies health, readiness and the usage routes name.
const (
	DepRedis      = "redis"
	DepClickHouse = "clickhouse"
)

const (
	// probeTimeout bounds one check; a check that has not answered by then counts as unavailable, even
	// if it ignores its context (a hung ClickHouse): it runs in its own goroutine.
	probeTimeout = time.Second
	// probeFresh is how long a check's answer stands before a request triggers another.
	probeFresh = 250 * time.Millisecond
	// healthWait is how long /api/health and /readyz wait for checks in flight: they answer within it
	// whatever hangs, from the last answers.
	healthWait = 40 * time.Millisecond
	// outageLogEvery spaces the summary lines of an outage: one line per state change and one count per
	// interval, never one per request.
	outageLogEvery = 10 * time.Second
)

// depState is one dependency's last known state.
type depState struct {
	name  string
	check func(context.Context) error

	down atomic.Bool // read on every request's fast path

	mu        sync.Mutex
	known     bool      // a check has answered or a request has failed on it
	err       string    // the last failure
	since     time.Time // when the current state began
	checkedAt time.Time
	running   bool      // a check is in flight (at most one per dependency, even a hung one)
	startedAt time.Time // of the check in flight
	done      chan struct{}
	refused   int64 // requests failed on it since the last log line
	loggedAt  time.Time
}

// deps tracks the dependencies' states from periodic checks (triggered by health and readiness) and
// from requests that fail or succeed on them, and logs their changes quietly.
type deps struct {
	log    *slog.Logger
	states map[string]*depState
	names  []string
	// timeout and fresh are probeTimeout and probeFresh (a test shortens them)
	timeout, fresh time.Duration
	// afterAnswer, in tests, runs once a check's answer or its timeout is taken (nil in production)
	afterAnswer func(ctx context.Context)
}

func newDeps(checks map[string]func(context.Context) error, log *slog.Logger) *deps {
	d := &deps{log: log, states: map[string]*depState{}, timeout: probeTimeout, fresh: probeFresh}
	for n, c := range checks {
		d.states[n] = &depState{name: n, check: c}
		d.names = append(d.names, n)
	}
	sort.Strings(d.names)
	return d
}

// probe starts a check of the dependency unless one is in flight or the last answer is fresh.
func (d *deps) probe(name string) {
	st := d.states[name]
	if st == nil {
		return
	}
	st.mu.Lock()
	if st.running || (st.known && time.Since(st.checkedAt) < d.fresh) {
		st.mu.Unlock()
		return
	}
	st.running, st.startedAt, st.done = true, time.Now(), make(chan struct{})
	done := st.done
	st.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		defer cancel()
		res := make(chan error, 1)
		go func() { res <- st.check(ctx) }()
		var err error
		answered := true
		select {
		case err = <-res:
		case <-ctx.Done():
			err, answered = ctx.Err(), false
		}
		if d.afterAnswer != nil {
			d.afterAnswer(ctx)
		}
		d.set(st, err, true)
		close(done)
		// A check that ignored its context is still running: no new check starts until it returns. Only
		// then: a check that failed right at its deadline has answered already (its context is done too),
		// and a second receive would never return, leaving the dependency's state stuck for good.
		if !answered {
			<-res
		}
		st.mu.Lock()
		st.running = false
		st.mu.Unlock()
	}()
}

// probeAll starts the checks and waits up to healthWait for them.
func (d *deps) probeAll(names ...string) {
	if len(names) == 0 {
		names = d.names
	}
	var waits []chan struct{}
	for _, n := range names {
		d.probe(n)
		if st := d.states[n]; st != nil {
			st.mu.Lock()
			if st.running && st.done != nil {
				waits = append(waits, st.done)
			}
			st.mu.Unlock()
		}
	}
	timer := time.NewTimer(healthWait)
	defer timer.Stop()
	for _, w := range waits {
		select {
		case <-w:
		case <-timer.C:
			return
		}
	}
}

// state is "ok", "unavailable" or "unknown" (no check has answered yet).
func (d *deps) state(name string) string {
	st := d.states[name]
	if st == nil {
		return "unknown"
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.running && time.Since(st.startedAt) > d.timeout:
		return "unavailable" // hung: no answer within the timeout
	case !st.known:
		return "unknown"
	case st.down.Load():
		return "unavailable"
	}
	return "ok"
}

// isDown reports a dependency known to be unavailable (the fast path of requests that need it). It also
// starts a check, so a recovery is noticed without waiting for health to be asked.
func (d *deps) isDown(name string) bool {
	st := d.states[name]
	if st == nil || !st.down.Load() {
		return false
	}
	d.probe(name)
	return true
}

// failed notes a request that failed on the dependency.
func (d *deps) failed(name string, err error) {
	if st := d.states[name]; st != nil {
		d.set(st, err, false)
	}
}

// succeeded notes a request the dependency served (cheap when nothing changes).
func (d *deps) succeeded(name string) {
	if st := d.states[name]; st != nil && st.down.Load() {
		d.set(st, nil, false)
	}
}

// set records a state, logging a change once and, while down, a count of the failed requests every
// outageLogEvery.
func (d *deps) set(st *depState, err error, fromCheck bool) {
	now := time.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	if fromCheck {
		st.checkedAt = now
	}
	wasDown, wasKnown := st.down.Load(), st.known
	st.known = true
	if err == nil {
		if wasDown {
			st.down.Store(false)
			if d.log != nil {
				d.log.LogAttrs(context.Background(), slog.LevelInfo, "dependency available again", slog.String("dependency", st.name),
					slog.Float64("down_seconds", now.Sub(st.since).Seconds()), slog.Int64("requests_failed", st.refused))
			}
			st.refused = 0
		}
		if wasDown || !wasKnown {
			st.since = now
		}
		return
	}
	st.err = err.Error()
	if !fromCheck {
		st.refused++
	}
	if !wasDown {
		st.down.Store(true)
		st.since, st.loggedAt = now, now
		if d.log != nil {
			d.log.LogAttrs(context.Background(), slog.LevelError, "dependency unavailable", slog.String("dependency", st.name), slog.String("error", st.err))
		}
		return
	}
	if now.Sub(st.loggedAt) >= outageLogEvery {
		if d.log != nil {
			d.log.LogAttrs(context.Background(), slog.LevelWarn, "dependency still unavailable", slog.String("dependency", st.name),
				slog.String("error", st.err), slog.Float64("down_seconds", now.Sub(st.since).Seconds()), slog.Int64("requests_failed", st.refused))
		}
		st.loggedAt = now
	}
}

// quietLog logs the first of a kind of error, then a count per interval instead of a line per request.
type quietLog struct {
	log   *slog.Logger
	mu    sync.Mutex
	kinds map[string]*quietKind
}

type quietKind struct {
	at         time.Time
	suppressed int64
}

// error logs msg for kind unless one was logged within outageLogEvery; the next line carries how many
// were left out.
func (q *quietLog) error(kind, msg string, attrs ...slog.Attr) {
	now := time.Now()
	q.mu.Lock()
	if q.kinds == nil {
		q.kinds = map[string]*quietKind{}
	}
	k := q.kinds[kind]
	if k == nil {
		k = &quietKind{}
		q.kinds[kind] = k
	}
	if !k.at.IsZero() && now.Sub(k.at) < outageLogEvery {
		k.suppressed++
		q.mu.Unlock()
		return
	}
	n := k.suppressed
	k.at, k.suppressed = now, 0
	q.mu.Unlock()
	if n > 0 {
		attrs = append(attrs, slog.Int64("similar_not_logged", n))
	}
	q.log.LogAttrs(context.Background(), slog.LevelError, msg, attrs...)
}
