package testcheck

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, failing the test when it has not within the given time: a test
// waits for the condition it needs, never for a fixed time. Polls start 100 µs apart and back off to
// 20 ms (a fast condition is seen at once, a slow one costs little).
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	WaitForOr(t, within, what, cond, nil)
}

// WaitForOr is WaitFor whose failure also says what explain returns (the state the condition saw).
func WaitForOr(t testing.TB, within time.Duration, what string, cond func() bool, explain func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 100 * time.Microsecond
	for !cond() {
		if time.Now().After(deadline) {
			if explain != nil {
				what += ": " + explain()
			}
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}
