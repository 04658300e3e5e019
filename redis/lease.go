package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// LeaseMeter implements account.Meter with token leases, so that most metered requests cost no Redis
// round trip. Redis and the charge script stay the single source of truth: the script grants an edge a
// block of a key's tokens (and, on a rate-limited plan, of its request rate) atomically, never more than
// the plan allows; the edge spends the block in memory, settles what it spent every Interval (and on
// Flush and shutdown), tops the block up as the key's request rate asks, and gives back what it did not
// spend once the key goes quiet. The key record (plan, active) comes from rueidis client-side caching,
// so a revoke, regenerate or plan change reaches every edge through Redis's invalidation.
//
// Guarantees (tested in lease_test.go and edge/lease_test.go):
//   - A key never spends past a hard-block allowance across edges: the script checks every charge and
//     every grant against used + leased.
//   - Near the allowance, and when what remains is small against the edges holding the key's leases
//     (below MinLease after sharing it four ways per holder), requests are charged exactly, one script
//     call each, as without leases.
//   - tokens_used counts the tokens of served requests once the edges have settled: within Interval, at
//     once for the caller's own edge after Flush.
//   - A revoked key is refused on every edge as soon as the invalidation arrives (well within Interval).
//   - An edge that dies holding a lease never under-counts, and over-counts the key by at most the
//     tokens it held unspent: a lease not settled within TTL is counted whole as used. A lease is
//     never topped up past its ceiling: the tokens its edge served of the key in about the last second
//     (the last 1 s / Interval - 1 ticks and the current one), at least MinLease (16), and a tick gives
//     back what a lease holds past its ceiling (the key's rate fell); within the
//     allowance, never past a quarter of what no edge holds per holder. Past the allowance (overage)
//     the same ceiling holds: no large block. So a dead edge costs a key at most about one second of
//     its request rate on that edge (plus one request's tokens), and at most MinLease when it was quiet.
//   - A lease that lapsed while its edge lived (a stall, or a Redis outage or restart longer than
//     TTL) is counted whole only until that edge reports again: the report revives it (d:<edge>), so
//     a Redis restart does not turn the edges' outstanding leases into charged tokens.
//   - A report is never capped at what Redis holds for the edge: after a restart that lost writes
//     (AOF with appendfsync everysec) the tokens an edge served are still counted.
//   - X-Tokens-Remaining on a request served from a lease is the allowance less what was used and leased
//     to other edges at this edge's last settle, less what this edge spent since: across edges it can be
//     up to one Interval of the other edges' spending too high.
//
// The lease's states and moves. A lease of one key and period on one edge holds, in memory, allow and
// over (tokens it may spend), unsettled (tokens spent since its last report) and inflight (spends between
// their two steps); Redis holds, per edge, own (l:<edge>: tokens granted and not yet reported or given
// back) and its expiry (x:<edge>), beside the key's used and leased.
//   - spend (lock-free): take the tokens from allow or over, then add them to unsettled. Never the other
//     way round: a report is then never more than the edge took, so it never exceeds own while Redis
//     holds every write.
//   - exact charge with refill (under mu): report unsettled, charge the request, and grant a new block
//     into allow or over.
//   - settle (tick or Flush, under mu): report unsettled; top up to the ceiling (a tick gives back
//     what is held past it); at least every TTL/2 while it holds
//     tokens, so own does not lapse under a live edge.
//   - refund (under mu): a lease charge goes back into allow and out of unsettled; on a lease already
//     given back, the script refunds it.
//   - forget (revoke, regenerate, plan change) and give back (quiet key, past period, shutdown; under mu):
//     report unsettled and return allow, over and credits; the lease leaves the map only when it holds
//     nothing and no spend is in flight.
//   - lapse: own not settled within TTL (the edge died, or Redis was away) is added to used whole by
//     the next script call on the key from another edge, and kept as d:<edge>; the edge's next call
//     takes it out of used again and back into own (revive). An edge told Redis had no lease of its
//     own at all (lost writes) drops what it holds; its report is counted.
//
// Invariant (TestLeaseSpendInterleavings drives each move between a spend's two steps;
// TestLeaseMetersProperty drives them concurrently across edges):
// used + sum over edges of (unsettled + inflight tokens) >= tokens served, and
// used <= tokens served + sum over dead or lapsed edges of (tokens held unspent) + reports counted twice
// (a call Redis applied whose reply was lost, then sent again), each term at most one lease's ceiling.
type LeaseMeter struct {
	*Meter
	opt  LeaseOptions
	edge string

	mu     sync.RWMutex
	leases map[leaseKey]*lease
	period atomic.Pointer[namedPeriod] // the last period charged, with its ID
	// forgotten holds the keys this process changed (Forget), with when: their record is read from
	// Redis itself, not the client-side cache, until Redis's invalidation has surely arrived
	forgotten sync.Map
	// between runs, in tests, between a spend's two steps (export_test.go); nil in production
	between func()
}

// forgetFor is how long a changed key's record bypasses the client-side cache.
const forgetFor = time.Second

// Forget makes the next request of the key read its record from Redis and gives back its leases: the
// process changed the record itself (revoke, regenerate, plan), so it applies at once, not when Redis's
// invalidation of the cached record arrives (redis.KeyStore.OnChange).
func (m *LeaseMeter) Forget(keyHash string) {
	m.forgotten.Store(keyHash, time.Now())
	m.mu.RLock()
	for k, l := range m.leases {
		if k.hash == keyHash {
			l.rec.Store(nil)
			l.drop.Store(true)
		}
	}
	m.mu.RUnlock()
}

type namedPeriod struct {
	account.Period
	id string
}

// periodOf is account.PeriodOf(now) with its ID, formatted once a month rather than per request.
func (m *LeaseMeter) periodOf(now time.Time) *namedPeriod {
	if p := m.period.Load(); p != nil && !now.Before(p.Start) && now.Before(p.End) {
		return p
	}
	p := account.PeriodOf(now)
	np := &namedPeriod{Period: p, id: p.ID()}
	m.period.Store(np)
	return np
}

// LeaseOptions tune a LeaseMeter; zero values take the defaults.
type LeaseOptions struct {
	Interval  time.Duration // how often leases are settled (default 100 ms)
	TTL       time.Duration // a lease not settled within it is counted as spent (default 5 s)
	MinLease  int64         // the smallest grant worth holding, in tokens (default 16)
	MaxLease  int64         // the largest grant, in tokens (default 1,000,000)
	RecordTTL time.Duration // client-side cache lifetime of a key record (default 1 minute)
	// Recheck is how long a lease trusts the key record it last read from the client-side cache
	// (default 10 ms): a busy key reads the cache once per Recheck, not once per request.
	Recheck time.Duration
}

func (o LeaseOptions) withDefaults() LeaseOptions {
	if o.Interval <= 0 {
		o.Interval = 100 * time.Millisecond
	}
	if o.TTL <= 0 {
		o.TTL = 5 * time.Second
	}
	if o.MinLease <= 0 {
		o.MinLease = 16
	}
	if o.MaxLease <= 0 {
		o.MaxLease = 1_000_000
	}
	if o.RecordTTL <= 0 {
		o.RecordTTL = time.Minute
	}
	if o.Recheck <= 0 {
		o.Recheck = 10 * time.Millisecond
	}
	return o
}

var _ account.Meter = (*LeaseMeter)(nil)

// NewLeaseMeter returns a leasing meter; Run settles its leases and must run while it serves.
func NewLeaseMeter(c rueidis.Client, plans account.Plans, opt LeaseOptions) *LeaseMeter {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &LeaseMeter{Meter: NewMeter(c, plans), opt: opt.withDefaults(), edge: hex.EncodeToString(b),
		leases: map[leaseKey]*lease{}}
}

type leaseKey struct{ hash, period string }

// lease is an edge's block of one key's tokens for one period. Spending is lock-free (compare and
// swap); settling holds mu.
type lease struct {
	mu     sync.Mutex
	key    leaseKey
	period account.Period
	plan   atomic.Pointer[string] // the plan it was granted under; nil before the first grant
	dead   bool                   // given back and removed from the map (under mu)

	allow, over atomic.Int64 // tokens held within the allowance, past it
	credits     atomic.Int64 // request credits held
	// rateElsewhere is what the key's rate bucket held beyond this lease's credits at the last settle:
	// X-RateLimit-Remaining is the bucket's, not this edge's share of it
	rateElsewhere atomic.Int64
	unlimitedRate atomic.Bool  // the plan has no rate limit: no credits needed
	unsettled     atomic.Int64 // tokens spent (less refunded) since the last settle
	// inflight counts spends between taking their tokens and counting them in unsettled: a lease is
	// not removed while one is, or its tokens would be counted in a lease nobody settles any more
	inflight   atomic.Int64
	tickTokens atomic.Int64 // tokens spent (from the lease or charged exactly) since the last tick (sizing)
	tickReqs   atomic.Int64 // requests served since the last tick (sizing)
	base       atomic.Int64 // used + leased at the last settle
	limit      atomic.Int64
	drop       atomic.Bool // revoked or replaced: give everything back at the next settle
	rec        atomic.Pointer[checkedRecord]
	between    func() // the meter's test hook (nil in production)

	// under mu
	want, wantCredits int64
	// recent holds the tokens of the last ticks, one a tick, covering one second (sizing); recentSum
	// is their sum
	recent     []int64
	recentAt   int
	recentSum  int64
	lastSettle time.Time
	idle       int
}

// checkedRecord is a key record as read at a time (monotonic clock).
type checkedRecord struct {
	record
	at time.Time
}

// record is the cached part of a key record the meter needs.
type record struct {
	found, active          bool
	id, prefix, user, plan string
}

// readRecord reads a key record through the client-side cache, or from Redis itself.
func (m *LeaseMeter) readRecord(ctx context.Context, hash string, cached bool) (record, error) {
	var vals []rueidis.RedisMessage
	var err error
	if cached {
		vals, err = m.c.DoCache(ctx, m.c.B().Hmget().Key(keyRecordKey(hash)).Field("id", "prefix", "user_id", "plan", "active").Cache(),
			m.opt.RecordTTL).ToArray()
	} else {
		vals, err = m.c.Do(ctx, m.c.B().Hmget().Key(keyRecordKey(hash)).Field("id", "prefix", "user_id", "plan", "active").Build()).ToArray()
	}
	if err != nil {
		return record{}, err
	}
	var r record
	if len(vals) != 5 {
		return r, fmt.Errorf("key record: %d values", len(vals))
	}
	if r.id, err = vals[0].ToString(); err != nil {
		return r, nil // no such key
	}
	r.found = true
	r.prefix, _ = vals[1].ToString()
	r.user, _ = vals[2].ToString()
	r.plan, _ = vals[3].ToString()
	a, _ := vals[4].ToString()
	r.active = a == "1"
	return r, nil
}

func (m *LeaseMeter) lease(hash string, p *namedPeriod) *lease {
	k := leaseKey{hash, p.id}
	m.mu.RLock()
	l := m.leases[k]
	m.mu.RUnlock()
	if l != nil {
		return l
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if l = m.leases[k]; l == nil {
		l = &lease{key: k, period: p.Period, between: m.between}
		m.leases[k] = l
	}
	return l
}

// Charge implements account.Meter: from the edge's lease when it holds enough, else one script call
// that charges the request exactly, settles the lease and asks for a new block.
func (m *LeaseMeter) Charge(ctx context.Context, keyHash string, cost int, now time.Time) (account.Charge, error) {
	if cost < 0 {
		return account.Charge{}, fmt.Errorf("negative cost %d", cost)
	}
	np := m.periodOf(now)
	p := np.Period
	rec, l, err := m.recordOf(ctx, keyHash, np)
	if err != nil {
		return account.Charge{}, fmt.Errorf("meter: %w", err)
	}
	if !rec.found {
		return account.Charge{}, shariah.Errorf(shariah.EBADKEY, "Invalid API key.")
	}
	key := account.APIKey{ID: rec.id, Hash: keyHash, Prefix: rec.prefix, UserID: rec.user, Plan: rec.plan, Active: rec.active}
	plan, known := m.plans.Lookup(rec.plan)
	if !rec.active || !known {
		// a revoked key's leases are given back at the next tick
		if l != nil {
			l.drop.Store(true)
		}
		if !rec.active {
			return account.Charge{Key: key, Period: p}, shariah.Errorf(shariah.EKEYINACTIVE, "This API key has been deactivated.")
		}
		return m.Meter.Charge(ctx, keyHash, cost, now) // the script names the unknown plan
	}
	for {
		if l == nil {
			l = m.lease(keyHash, np)
		}
		if pl := l.plan.Load(); pl != nil && *pl == rec.plan {
			if ch, ok := l.spend(cost, plan); ok {
				ch.Key, ch.Period = key, p
				return ch, nil
			}
		}
		ch, err, retry := m.refill(ctx, l, key, plan, cost)
		if !retry {
			return ch, err
		}
		l = nil // given back meanwhile: a fresh one
	}
}

// recordOf is the key record: the one a lease of the key read within Recheck, else the client-side
// cache's (which Redis invalidates on every change of the record); with the key's lease when the key
// exists.
func (m *LeaseMeter) recordOf(ctx context.Context, hash string, p *namedPeriod) (record, *lease, error) {
	l := m.existing(hash, p.id)
	if l != nil {
		if r := l.rec.Load(); r != nil && time.Since(r.at) < m.opt.Recheck {
			return r.record, l, nil
		}
	}
	at := time.Now()
	var r record
	var err error
	if v, ok := m.forgotten.Load(hash); ok && at.Sub(v.(time.Time)) < forgetFor {
		r, err = m.readRecord(ctx, hash, false)
	} else {
		if ok {
			m.forgotten.Delete(hash)
		}
		r, err = m.readRecord(ctx, hash, true)
	}
	if err != nil || !r.found {
		return r, nil, err
	}
	if l == nil {
		l = m.lease(hash, p)
	}
	l.rec.Store(&checkedRecord{record: r, at: at})
	return r, l, nil
}

func (m *LeaseMeter) existing(hash, periodID string) *lease {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.leases[leaseKey{hash, periodID}]
}

// spend takes a request's credit and tokens from the lease, or reports that it cannot.
func (l *lease) spend(cost int, plan account.Plan) (account.Charge, bool) {
	limited := !l.unlimitedRate.Load()
	if limited && !take(&l.credits, 1) {
		return account.Charge{}, false
	}
	c := int64(cost)
	overage := false
	if c > 0 {
		// Take the tokens first, then count them as spent. A settle that runs in between reports less
		// than was taken: the rest stays in the lease's Redis record (the edge's Redis share is always
		// at least what it reports) and is reported at the next settle, or counted when the record
		// lapses. Counting first let a settle report a token that the lease might not hand over: the
		// script caps a report at what the lease holds, so after a refill the token was served and
		// never counted (TestLeaseSpendInterleavings).
		l.inflight.Add(1)
		switch {
		case take(&l.allow, c):
		case take(&l.over, c):
			overage = true
		default:
			l.inflight.Add(-1)
			if limited {
				l.credits.Add(1)
			}
			return account.Charge{}, false
		}
		if l.between != nil {
			l.between()
		}
		l.unsettled.Add(c)
		l.inflight.Add(-1)
		l.tickTokens.Add(c)
	}
	l.tickReqs.Add(1)
	ch := account.Charge{Limit: l.limit.Load(), Tokens: cost, Lease: true}
	if overage {
		ch.Overage = cost
	}
	ch.Used = l.base.Load() - l.allow.Load() - l.over.Load()
	ch.Remaining = account.RemainingOf(ch.Limit, ch.Used)
	if r := plan.RateLimit; r.Limited() {
		left := min(l.credits.Load()+l.rateElsewhere.Load(), int64(r.Burst))
		ch.Rate = account.RateState{Burst: r.Burst, Remaining: int(left),
			ResetMS: int64(float64(int64(r.Burst)-left) * 1000 / r.RequestsPerSecond)}
	}
	return ch, true
}

// take subtracts n from v if v holds at least n.
func take(v *atomic.Int64, n int64) bool {
	for {
		cur := v.Load()
		if cur < n {
			return false
		}
		if v.CompareAndSwap(cur, cur-n) {
			return true
		}
	}
}

// takeUpTo subtracts up to n from v (never below 0) and returns what it took.
func takeUpTo(v *atomic.Int64, n int64) int64 {
	for {
		cur := v.Load()
		t := min(cur, n)
		if t <= 0 {
			return 0
		}
		if v.CompareAndSwap(cur, cur-t) {
			return t
		}
	}
}

// refill charges the request exactly in the script call that settles the lease and asks for a new block.
// retry is set when the lease was given back meanwhile: the caller starts again with a fresh one.
func (m *LeaseMeter) refill(ctx context.Context, l *lease, key account.APIKey, plan account.Plan, cost int) (ch account.Charge, err error, retry bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dead {
		return ch, nil, true
	}
	if pl := l.plan.Load(); pl != nil && *pl == key.Plan {
		// another request's settle may have refilled the lease while this one waited
		if ch, ok := l.spend(cost, plan); ok {
			ch.Key, ch.Period = key, l.period
			return ch, nil, false
		}
		if time.Since(l.lastSettle) < m.opt.Interval {
			// spent within one interval: the key is busier than the lease was sized for (never past
			// the ceiling: what the edge served of the key in the last second)
			l.want = min(max(2*l.want, m.opt.MinLease), m.ceiling(l))
			l.wantCredits = min(max(2*l.wantCredits, 8), m.opt.MaxLease)
		}
	}
	call := m.call(l, key.Plan)
	call.charge, call.cost = true, cost
	// The script charges this request's rate itself: the request credits the lease holds go back first,
	// or a key whose tokens are charged exactly (a small allowance) would be refused by its own edge's
	// unspent credits once they held the rest of its burst.
	call.backCredits += l.credits.Swap(0)
	call.want = min(max(l.want, m.opt.MinLease, 4*int64(cost)), m.ceiling(l))
	call.wantCredits = max(l.wantCredits, 8)
	r, err := m.settle(ctx, l, call)
	if err != nil {
		return ch, err, false
	}
	if r.status == 0 {
		l.tickTokens.Add(int64(cost)) // served: part of the key's rate on this edge
	}
	ch = r.ch
	ch.Remaining = account.RemainingOf(ch.Limit, l.base.Load()-l.allow.Load()-l.over.Load())
	return ch, m.statusErr(r.status, &ch), false
}

// call starts a settle of the lease: what it spent, and everything it holds when its plan changed.
func (m *LeaseMeter) call(l *lease, plan string) meterCall {
	c := meterCall{edge: m.edge, minLease: m.opt.MinLease, leaseTTL: m.opt.TTL}
	if pl := l.plan.Load(); pl != nil && *pl != plan {
		over := l.over.Swap(0)
		c.back, c.backOver, c.backCredits = l.allow.Swap(0)+over, over, l.credits.Swap(0)
	}
	c.spent = l.unsettled.Swap(0)
	return c
}

// settle runs the script for the lease (holding its mu) and applies the answer.
func (m *LeaseMeter) settle(ctx context.Context, l *lease, call meterCall) (meterReply, error) {
	r, err := m.run(ctx, l.key.hash, l.period, time.Now(), call)
	m.apply(l, call, r, err)
	return r, err
}

// apply takes a settle's answer into the lease. A failed call's spending is settled again later and
// what it gave back returns to the lease, to be given back again (Redis caps a give-back at what the
// edge holds there). If the call did reach Redis and only its reply was lost, its report is counted
// twice: an over-count bounded by one report, never an under-count.
func (m *LeaseMeter) apply(l *lease, call meterCall, r meterReply, err error) {
	if err != nil {
		l.unsettled.Add(call.spent)
		l.allow.Add(call.back - call.backOver)
		l.over.Add(call.backOver)
		l.credits.Add(call.backCredits)
		return
	}
	l.lastSettle = time.Now()
	if r.lost {
		// Redis lost the grant (a restart that lost writes): what the edge holds is not counted in
		// leased, so it is dropped; what the edge served was counted
		l.allow.Store(0)
		l.over.Store(0)
	}
	switch r.status {
	case 1:
		l.drop.Store(true)
		return
	case 2, 4:
		l.drop.Store(true)
	}
	if r.grant > 0 {
		if r.overage {
			l.over.Add(r.grant)
		} else {
			l.allow.Add(r.grant)
		}
	}
	if r.credits < 0 {
		l.unlimitedRate.Store(true)
	} else {
		l.unlimitedRate.Store(false)
		l.credits.Add(r.credits)
		// the script's rl_remaining still counts the credits it just granted
		l.rateElsewhere.Store(max(int64(r.ch.Rate.Remaining)-r.credits, 0))
	}
	l.base.Store(r.ch.Used + r.leased)
	l.limit.Store(r.ch.Limit)
	plan := r.ch.Key.Plan
	l.plan.Store(&plan)
}

// Refund implements account.Meter: a charge served from a lease goes back to the lease (and is settled
// as negative spending); an exact charge is refunded by the script.
func (m *LeaseMeter) Refund(ctx context.Context, c account.Charge) error {
	if c.Tokens == 0 {
		return nil
	}
	if !c.Lease {
		return m.Meter.Refund(ctx, c)
	}
	l := m.existing(c.Key.Hash, c.Period.ID())
	if l == nil {
		// given back already: its spending was settled, so the exact refund applies
		return m.Meter.Refund(ctx, c)
	}
	// under mu: a lease given back and removed meanwhile takes no tokens back (nobody would settle them:
	// a request still holding the lease could spend them uncounted); the script refunds instead
	l.mu.Lock()
	if l.dead {
		l.mu.Unlock()
		return m.Meter.Refund(ctx, c)
	}
	t := int64(c.Tokens)
	l.unsettled.Add(-t)
	l.tickTokens.Add(-t)
	if c.Overage > 0 {
		l.over.Add(t)
	} else {
		l.allow.Add(t)
	}
	l.mu.Unlock()
	return nil
}

// Run settles the leases every Interval until ctx ends, then gives every lease back.
func (m *LeaseMeter) Run(ctx context.Context) error {
	t := time.NewTicker(m.opt.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			return m.tick(stop, true)
		case <-t.C:
			_ = m.tick(ctx, false)
		}
	}
}

// Flush settles this edge's leases of a key now, so that reads of its usage see every served request.
func (m *LeaseMeter) Flush(ctx context.Context, keyHash string) error {
	m.mu.RLock()
	var ls []*lease
	for k, l := range m.leases {
		if k.hash == keyHash {
			ls = append(ls, l)
		}
	}
	m.mu.RUnlock()
	for _, l := range ls {
		l.mu.Lock()
		var err error
		if !l.dead {
			if pl := l.plan.Load(); pl != nil {
				_, err = m.settle(ctx, l, m.call(l, *pl))
			}
		}
		l.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// tick settles every lease in one pipelined round trip: it reports what each spent, tops up the busy
// ones, and gives back those of quiet, revoked or past-period keys (all of them when final).
func (m *LeaseMeter) tick(ctx context.Context, final bool) error {
	m.mu.RLock()
	ls := make([]*lease, 0, len(m.leases))
	for _, l := range m.leases {
		ls = append(ls, l)
	}
	m.mu.RUnlock()
	now := time.Now()
	period := account.PeriodOf(now).ID()
	var held []*lease
	var calls []meterCall
	var releases []bool
	var execs []rueidis.LuaExec
	for _, l := range ls {
		if !l.mu.TryLock() {
			if !final {
				continue // a request is settling it right now
			}
			l.mu.Lock()
		}
		pl := l.plan.Load()
		if l.dead || pl == nil {
			l.mu.Unlock()
			continue
		}
		call, release, ok := m.tickCall(l, *pl, final || l.key.period != period, now)
		if !ok {
			if release && l.empty() {
				m.remove(l) // nothing held, nothing to say
			}
			l.mu.Unlock()
			continue
		}
		held = append(held, l)
		calls = append(calls, call)
		releases = append(releases, release)
		execs = append(execs, rueidis.LuaExec{Keys: []string{keyRecordKey(l.key.hash), meterKey(l.key.hash, l.key.period), rateKey(l.key.hash)},
			Args: call.args(l.period, now, m.planTable)})
	}
	if len(execs) == 0 {
		return nil
	}
	var firstErr error
	for i, res := range chargeScript.ExecMulti(ctx, m.c, execs...) {
		l, call := held[i], calls[i]
		var r meterReply
		vals, err := res.ToArray()
		if err == nil {
			r, err = readReply(vals, l.key.hash, l.period)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		m.apply(l, call, r, err)
		if err == nil && releases[i] && l.empty() {
			m.remove(l)
		}
		l.mu.Unlock()
	}
	return firstErr
}

// tickCall sizes a lease's settle at a tick: release when it gives everything back; ok is false when
// there is nothing to say.
func (m *LeaseMeter) tickCall(l *lease, plan string, release bool, now time.Time) (call meterCall, _, ok bool) {
	tokens, reqs := l.tickTokens.Swap(0), l.tickReqs.Swap(0)
	m.observe(l, tokens)
	if reqs == 0 {
		l.idle++
	} else {
		l.idle = 0
	}
	release = release || l.drop.Load() || l.idle >= 2
	call = m.call(l, plan)
	if release {
		over := l.over.Swap(0)
		call.back, call.backOver = call.back+l.allow.Swap(0)+over, call.backOver+over
		call.backCredits += l.credits.Swap(0)
		return call, true, call.spent != 0 || call.back > 0 || call.backCredits > 0
	}
	// a lease holding more than its ceiling (the key's rate fell) gives the rest back, over first
	if excess := l.allow.Load() + l.over.Load() - m.ceiling(l); excess >= m.opt.MinLease {
		over := takeUpTo(&l.over, excess)
		call.back, call.backOver = call.back+over+takeUpTo(&l.allow, excess-over), call.backOver+over
	}
	if reqs > 0 {
		// size the next block for two intervals of this interval's traffic, and top up to it
		l.want = min(max(2*tokens, m.opt.MinLease), m.ceiling(l))
		l.wantCredits = min(max(2*reqs, 8), m.opt.MaxLease)
		if need := l.want - l.allow.Load() - l.over.Load(); need >= m.opt.MinLease {
			call.want = need
		}
		if !l.unlimitedRate.Load() {
			if need := l.wantCredits - l.credits.Load(); need >= 4 {
				call.wantCredits = need
			}
		}
	}
	// a lease held without news would lapse: settle it at least every half lifetime
	keep := l.allow.Load()+l.over.Load() > 0 && now.Sub(l.lastSettle) > m.opt.TTL/2
	return call, false, call.spent != 0 || call.want > 0 || call.wantCredits > 0 || call.back > 0 || keep
}

// ceiling is the most a lease may be topped up to (under mu): the tokens the edge served of the key in
// about the last second (the completed ticks of the last second and the current one), at least
// MinLease and at most MaxLease. It bounds what the lease can over-count when its edge dies.
func (m *LeaseMeter) ceiling(l *lease) int64 {
	return min(max(l.recentSum+l.tickTokens.Load(), m.opt.MinLease), m.opt.MaxLease)
}

// observe records a tick's tokens in the last second's (under mu).
func (m *LeaseMeter) observe(l *lease, tokens int64) {
	if l.recent == nil {
		l.recent = make([]int64, max(int(time.Second/m.opt.Interval)-1, 1))
	}
	l.recentSum += tokens - l.recent[l.recentAt]
	l.recent[l.recentAt] = tokens
	l.recentAt = (l.recentAt + 1) % len(l.recent)
}

// empty reports that the lease holds no tokens and has no spending to report, settled or on its way
// (inflight is read first: a spend that starts after it finds the tokens gone, given back).
func (l *lease) empty() bool {
	return l.inflight.Load() == 0 && l.allow.Load()+l.over.Load() == 0 && l.unsettled.Load() == 0
}

// remove takes a given-back lease out of the map (holding its mu): a request holding it starts again.
func (m *LeaseMeter) remove(l *lease) {
	l.dead = true
	m.mu.Lock()
	if m.leases[l.key] == l {
		delete(m.leases, l.key)
	}
	m.mu.Unlock()
}
