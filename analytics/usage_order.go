package analytics

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// A batch in usage_events' order. A MergeTree insert sorts each part's rows by the table's sorting key
// and then moves every column into that order, the strings' bytes included, unless the rows are in that
// order already: the server checks first and skips both (MergeTreeDataWriter; its event
// MergeTreeDataWriterBlocksAlreadySorted counts the parts it did not sort). usage_events is sorted by
// (user_id, ts, event_id). The journal holds events in the order their requests ended, which for one
// user is nearly that order, but never quite: ts is the second the request began (a request that began
// just before a second ends and ended just after it is recorded after requests of the next second), two
// requests can append in the other order than they took their event ids, and users interleave.
// ClickHouse then sorts every batch. The shipper puts a batch in key order first (orderForInsert): for
// one user, a pass that moves a few rows; for many, a sort on the edge instead of on ClickHouse.
// Measured on the development machine (ClickHouse 18.16, one insert of 500,000 recorded events of one
// user, four runs each): 370-490 ms of ClickHouse's CPU in the journal's order against 240-270 ms in key
// order, the views included (their GROUP BY reads the rows in key order too); the order costs the edge
// 33-42 ns an event for one user and 61-84 for 1,000 (BenchmarkOrderForInsert, batches of 72,000; two sets of runs).
//
// What a partial insert stores must not change with the order: the spool's exactly-once lookups
// (UsageWriter.alreadyShipped) take the rows ClickHouse holds to be a prefix of the batch in the journal's
// order, and a batch spanning a month's end is written as one part per month, which a crash can cut
// between. So a batch is put in key order only when it lies in one month whatever ClickHouse's time
// zone (it is then one part, stored whole or not at all), and only after the lookups, which read the
// journal's order.

// monthMargin is how far from a month's end a batch must lie to be one month in every time zone
// (UTC-12 to UTC+14: the partition is toYYYYMM(ts) in the server's zone).
const monthMargin = 14 * time.Hour

// usageOrder is the shipper's reusable state for ordering a batch.
type usageOrder struct {
	keys, grouped []rowKey
	group, perm   []int32 // each row's group (groupByUser); the batch's new order
	scratch       orderScratch
	users         map[string]int32 // a user's group: its first row's place among the batch's users
	names         []string         // the users, by group
	rank, count   []int32          // per group: its place among the users in byte order; then where its rows begin
}

// orderScratch is one column of each type, which a batch's columns are reordered through one by one: a
// second copy of the whole batch would be about 19 MB at 100,000 events, these are about 5 (with the
// keys, 14 MB that the shipper keeps from batch to batch).
type orderScratch struct {
	str   []string
	u64   []uint64
	u32   []uint32
	u16   []uint16
	times []time.Time
}

// rowKey is a row's sorting key in usage_events (user_id, ts in seconds, event_id) and its place in the
// batch.
type rowKey struct {
	uid string
	sec uint64
	id  uint64
	row int32
}

// cmp compares two rows on usage_events' sorting key as the server does (the user id's bytes, then
// seconds, then the event id).
func (a *rowKey) cmp(b *rowKey) int {
	if a.uid != b.uid {
		return strings.Compare(a.uid, b.uid)
	}
	if a.sec != b.sec {
		return cmp.Compare(a.sec, b.sec)
	}
	return cmp.Compare(a.id, b.id)
}

// key is row i's sorting key.
func (c *usageColumns) key(i int) rowKey {
	return rowKey{c.uid[i], c.ms[i] / 1000, c.id[i], int32(i)}
}

// orderForInsert puts c in usage_events' key order when it is not in it and lies in one month in every
// time zone; it reports whether it moved any row. Rows with equal keys (only lines without an event id,
// written before migration 005, can have one) may change places: ClickHouse keeps either order.
func (o *usageOrder) orderForInsert(c *usageColumns) bool {
	k := c.len()
	if k < 2 {
		return false
	}
	o.keys = slices.Grow(o.keys[:0], k)[:k]
	keys := o.keys
	inOrder, multi := true, false
	lo, hi := c.ms[0], c.ms[0]
	for i := range keys {
		keys[i] = c.key(i)
		lo, hi = min(lo, c.ms[i]), max(hi, c.ms[i])
		if i > 0 {
			multi = multi || keys[i].uid != keys[i-1].uid
			inOrder = inOrder && keys[i-1].cmp(&keys[i]) <= 0
		}
	}
	if inOrder || !oneMonthEverywhere(lo, hi) {
		return false
	}
	if multi {
		keys = o.groupByUser(keys)
	}
	// Each user's rows are now out of place by a few positions at most (the journal's order, nearly
	// the key's): insertion moves each into place. Should that take more than a move a row on average,
	// a sort finishes.
	moves := 0
	for i := 1; i < k && moves <= k; i++ {
		for j := i; j > 0 && keys[j-1].cmp(&keys[j]) > 0; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
			moves++
		}
	}
	if moves > k {
		slices.SortFunc(keys, func(a, b rowKey) int { return a.cmp(&b) })
	}
	o.perm = slices.Grow(o.perm[:0], k)[:k]
	for i := range keys {
		o.perm[i] = keys[i].row
	}
	c.permute(o.perm, &o.scratch)
	return true
}

// groupByUser returns keys grouped by user, the users in byte order and each user's rows in the order
// keys has them (a counting sort: one map lookup where the user changes from one row to the next).
func (o *usageOrder) groupByUser(keys []rowKey) []rowKey {
	if o.users == nil {
		o.users = make(map[string]int32)
	}
	clear(o.users)
	o.names = o.names[:0]
	o.group = slices.Grow(o.group[:0], len(keys))[:len(keys)]
	g := int32(-1)
	for i := range keys {
		if i == 0 || keys[i].uid != keys[i-1].uid {
			var ok bool
			if g, ok = o.users[keys[i].uid]; !ok {
				g = int32(len(o.names))
				o.users[keys[i].uid] = g
				o.names = append(o.names, keys[i].uid)
			}
		}
		o.group[i] = g
	}
	n := len(o.names)
	o.rank = slices.Grow(o.rank[:0], n)[:n]
	for i := range o.rank {
		o.rank[i] = int32(i)
	}
	slices.SortFunc(o.rank, func(a, b int32) int { return strings.Compare(o.names[a], o.names[b]) })
	// rank now lists the groups in byte order; count becomes each group's first place
	o.count = slices.Grow(o.count[:0], n)[:n]
	clear(o.count)
	for _, g := range o.group {
		o.count[g]++
	}
	at := int32(0)
	for _, g := range o.rank {
		at, o.count[g] = at+o.count[g], at
	}
	o.grouped = slices.Grow(o.grouped[:0], len(keys))[:len(keys)]
	for i, g := range o.group {
		o.grouped[o.count[g]] = keys[i]
		o.count[g]++
	}
	return o.grouped
}

// oneMonthEverywhere reports whether every time between lo and hi (Unix milliseconds) falls in one
// calendar month in every time zone.
func oneMonthEverywhere(lo, hi uint64) bool {
	first := time.UnixMilli(int64(lo)).UTC().Add(-monthMargin)
	last := time.UnixMilli(int64(hi)).UTC().Add(monthMargin)
	return first.Year() == last.Year() && first.Month() == last.Month()
}

// permute puts c's rows in the order perm gives (row j becomes the row perm[j] was), one column at a
// time through sc.
func (c *usageColumns) permute(perm []int32, sc *orderScratch) {
	permuteCol(c.id, perm, &sc.u64)
	for _, col := range [...][]string{c.rid, c.kid, c.uid, c.kp, c.meth, c.route, c.plan, c.code} {
		permuteCol(col, perm, &sc.str)
	}
	clear(sc.str) // no reference into the journal's read buffer outlives the batch here
	permuteCol(c.status, perm, &sc.u16)
	permuteCol(c.tokens, perm, &sc.u32)
	permuteCol(c.overage, perm, &sc.u32)
	permuteCol(c.lat, perm, &sc.u64)
	permuteCol(c.ms, perm, &sc.u64)
	permuteCol(c.ts, perm, &sc.times)
}

func permuteCol[T any](col []T, perm []int32, scratch *[]T) {
	s := slices.Grow((*scratch)[:0], len(perm))[:len(perm)]
	for j, i := range perm {
		s[j] = col[i]
	}
	copy(col, s)
	*scratch = s
}
