package analytics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
)

// journalBatch is a batch as the journal holds it under load: users' events interleaved round-robin,
// each user's in nearly key order (every 20th event's id swapped with the next one's, and events
// straddling each second's start recorded after the next second's first ones), times from start on.
func journalBatch(n, users int, start time.Time) *usageColumns {
	var c usageColumns
	id := uint64(1 << 40)
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * 12 * time.Microsecond)
		if i%1000 == 3 { // began before the second's start, ended after the next events
			at = at.Add(-3 * time.Millisecond)
		}
		id++
		eid := id
		if i%20 == 5 {
			eid = id + 1
		} else if i%20 == 6 {
			eid = id - 1
		}
		u := i % users
		c.add(account.UsageEvent{
			RequestID: fmt.Sprintf("req-%08d", i), KeyID: fmt.Sprintf("key-%04d", u), UserID: fmt.Sprintf("user-%04d", u),
			KeyPrefix: "sk_live_ab", Method: "GET", Route: "/bench/metered", Status: 200, Tokens: 1 + i%3,
			Latency: time.Duration(i%700) * time.Microsecond, Time: at, Plan: "pro", EventID: eid,
		})
	}
	return &c
}

// rows renders each row of a batch whole, so that a test can tell a row moved from a row torn apart.
func rows(c *usageColumns) []string {
	out := make([]string, c.len())
	for i := range out {
		out[i] = fmt.Sprint(c.id[i], c.rid[i], c.kid[i], c.uid[i], c.kp[i], c.meth[i], c.route[i], c.plan[i], c.code[i],
			c.status[i], c.tokens[i], c.overage[i], c.lat[i], c.ms[i], c.ts[i].Unix())
	}
	return out
}

func inKeyOrder(c *usageColumns) bool {
	for i := 1; i < c.len(); i++ {
		if a, b := c.key(i-1), c.key(i); a.cmp(&b) > 0 {
			return false
		}
	}
	return true
}

func TestOrderForInsertPutsABatchInKeyOrder(t *testing.T) {
	mid := time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		n, users int
		shuffle  bool
	}{
		{"one user, nearly in order", 30000, 1, false},
		{"three users interleaved", 30000, 3, false},
		{"1,000 users interleaved", 30000, 1000, false},
		{"shuffled", 5000, 7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := journalBatch(tc.n, tc.users, mid)
			if tc.shuffle {
				r := rand.New(rand.NewPCG(1, 2))
				var tmp usageColumns
				perm := make([]int32, c.len())
				for i := range perm {
					perm[i] = int32(i)
				}
				r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
				tmp = copyColumns(c)
				tmp.permute(perm, &orderScratch{})
				c = &tmp
			}
			if inKeyOrder(c) {
				t.Fatal("the test's batch is in key order already")
			}
			before := rows(c)
			var o usageOrder
			if !o.orderForInsert(c) {
				t.Fatal("orderForInsert reported moving no row of a batch out of key order")
			}
			if !inKeyOrder(c) {
				t.Fatal("the batch is not in (user_id, ts, event_id) order after orderForInsert")
			}
			after := rows(c)
			slices.Sort(before)
			slices.Sort(after)
			if !slices.Equal(before, after) {
				t.Fatal("orderForInsert changed the batch's rows, not only their order")
			}
			// the shipper reuses its state: a second batch is ordered as well
			c2 := journalBatch(tc.n/2, tc.users+1, mid.Add(time.Hour))
			if !o.orderForInsert(c2) || !inKeyOrder(c2) || c2.len() != tc.n/2 {
				t.Fatal("a second batch through the same state is not in key order")
			}
		})
	}
}

func TestOrderForInsertLeavesABatchInOrderAsItIs(t *testing.T) {
	c := journalBatch(2000, 2, time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC))
	var o usageOrder
	o.orderForInsert(c)
	want := rows(c)
	if o.orderForInsert(c) {
		t.Fatal("orderForInsert reported moving rows of a batch in key order")
	}
	if !slices.Equal(rows(c), want) {
		t.Fatal("a batch in key order was changed")
	}
	var one usageOrder
	single := journalBatch(1, 1, time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC))
	if one.orderForInsert(single) || single.len() != 1 {
		t.Fatal("a batch of one row was changed")
	}
}

// A batch near a month's end may be written as two parts (one per month in ClickHouse's time zone), and
// the spool's lookups after a crash between them need the stored rows to be a prefix in the journal's
// order: such a batch keeps that order.
func TestOrderForInsertLeavesABatchNearAMonthsEndInTheJournalsOrder(t *testing.T) {
	monthEnd := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		start time.Time
		moved bool
	}{
		{"across the month's end", monthEnd.Add(-time.Second), false},
		{"13 hours before it (the month's end in UTC+14)", monthEnd.Add(-13 * time.Hour), false},
		{"11 hours after it (in UTC-12)", monthEnd.Add(11 * time.Hour), false},
		{"15 hours before it", monthEnd.Add(-15 * time.Hour), true},
		{"15 hours after it", monthEnd.Add(15 * time.Hour), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := journalBatch(3000, 3, tc.start) // 36 ms of events
			want := rows(c)
			var o usageOrder
			if moved := o.orderForInsert(c); moved != tc.moved {
				t.Fatalf("orderForInsert moved rows: %v, want %v", moved, tc.moved)
			}
			if !tc.moved && !slices.Equal(rows(c), want) {
				t.Fatal("a batch near a month's end left the journal's order")
			}
			if tc.moved && !inKeyOrder(c) {
				t.Fatal("a batch far from a month's end is not in key order")
			}
		})
	}
}

func BenchmarkOrderForInsert(b *testing.B) {
	for _, users := range []int{1, 1000} {
		b.Run(fmt.Sprintf("users=%d", users), func(b *testing.B) {
			src := journalBatch(72000, users, time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC))
			var c usageColumns
			var o usageOrder
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				copyInto(&c, src) // the batch as the journal holds it, again
				b.StartTimer()
				o.orderForInsert(&c)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/72000, "ns/event")
		})
	}
}

// copyColumns is a copy of a batch's columns.
func copyColumns(c *usageColumns) usageColumns {
	return usageColumns{
		id: slices.Clone(c.id), rid: slices.Clone(c.rid), kid: slices.Clone(c.kid), uid: slices.Clone(c.uid), kp: slices.Clone(c.kp),
		meth: slices.Clone(c.meth), route: slices.Clone(c.route), plan: slices.Clone(c.plan), code: slices.Clone(c.code),
		status: slices.Clone(c.status), tokens: slices.Clone(c.tokens), overage: slices.Clone(c.overage),
		lat: slices.Clone(c.lat), ms: slices.Clone(c.ms), ts: slices.Clone(c.ts),
	}
}

// copyInto makes dst a copy of src, reusing dst's columns.
func copyInto(dst, src *usageColumns) {
	dst.reset()
	dst.id, dst.rid, dst.kid, dst.uid, dst.kp = append(dst.id, src.id...), append(dst.rid, src.rid...), append(dst.kid, src.kid...), append(dst.uid, src.uid...), append(dst.kp, src.kp...)
	dst.meth, dst.route, dst.plan, dst.code = append(dst.meth, src.meth...), append(dst.route, src.route...), append(dst.plan, src.plan...), append(dst.code, src.code...)
	dst.status, dst.tokens, dst.overage = append(dst.status, src.status...), append(dst.tokens, src.tokens...), append(dst.overage, src.overage...)
	dst.lat, dst.ms, dst.ts = append(dst.lat, src.lat...), append(dst.ms, src.ms...), append(dst.ts, src.ts...)
}
