package redis

// SetBetween makes every spend from the meter's leases call f between its two steps (taking the tokens
// from the lease and counting them as spent), so a test can run a settle, a refill or a refund exactly
// there. Set it before the meter's first charge.
func SetBetween(m *LeaseMeter, f func()) { m.between = f }
