package webhooks

import "time"

// Backoff is the retry schedule of a delivery: the n-th retry waits First·2ⁿ, at most Max, and retries
// go on until their waits add up to Window. The default (30 s doubling to 4 h, for 24 h) is 14 retries
// (15 attempts), the last about 24 h 15 min after the first: a receiver down for a day still gets
// every event.
type Backoff struct {
	First, Max, Window time.Duration
}

// DefaultBackoff is the production schedule; tests inject a schedule of milliseconds.
func DefaultBackoff() Backoff {
	return Backoff{First: 30 * time.Second, Max: 4 * time.Hour, Window: 24 * time.Hour}
}

// Delay is the wait after the attempt that failed with n retries already made (asynq's retry count).
func (b Backoff) Delay(n int) time.Duration {
	d := b.First
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	if d > b.Max {
		d = b.Max
	}
	return d
}

// Retries is how many retries the schedule makes: the fewest whose waits reach Window (at least one).
func (b Backoff) Retries() int {
	if b.First <= 0 {
		return 1
	}
	var sum time.Duration
	n := 0
	for sum < b.Window {
		sum += b.Delay(n)
		n++
	}
	return max(n, 1)
}
