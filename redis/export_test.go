package redis

import "context"

// SetBetween makes every spend from the meter's leases call f between its two steps (taking the tokens
// from the lease and counting them as spent), so a test can run a settle, a refill or a refund exactly
// there. Set it before the meter's first charge.
func SetBetween(m *LeaseMeter, f func()) { m.between = f }

// Held is the tokens the meter's leases of the key hold unspent: what a crash of its edge over-counts.
func Held(m *LeaseMeter, hash string) int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var n int64
	for k, l := range m.leases {
		if k.hash == hash {
			n += l.allow.Load() + l.over.Load()
		}
	}
	return n
}

// EdgeID is the meter's edge id, as its lease fields in the meter hash name it (l:<edge>).
func EdgeID(m *LeaseMeter) string { return m.edge }

// Tick runs one settle of every lease, as Run does every Interval; final gives everything back, as Run
// does when it ends. A test that drives ticks itself can stop them without the final give-back: a
// crashed edge.
func Tick(ctx context.Context, m *LeaseMeter, final bool) error { return m.tick(ctx, final) }
