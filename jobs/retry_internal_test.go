package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/shariah-screen/shariah/webhooks"
)

// A retry's time as asynq keeps it (whole seconds, truncated) is never before the delay asked for, and
// at most a second after it, wherever in a second the failure falls.
func TestRetryDelayIsNeverEarlyInWholeSeconds(t *testing.T) {
	base := time.Date(2026, 11, 27, 17, 33, 50, 0, time.UTC)
	for _, d := range []time.Duration{0, time.Millisecond, 20 * time.Millisecond, 999 * time.Millisecond, time.Second, 1500 * time.Millisecond, time.Minute} {
		for _, frac := range []time.Duration{0, time.Nanosecond, 357 * time.Millisecond, 980 * time.Millisecond, time.Second - time.Nanosecond} {
			now := base.Add(frac)
			got := notEarly(now, d)
			stored := time.Unix(now.Add(got).Unix(), 0) // rdb.Retry: processAt.Unix()
			if stored.Before(now.Add(d)) {
				t.Fatalf("delay %s at +%s: lengthened to %s, due at %s, before %s", d, frac, got, stored.Format("05.000"), now.Add(d).Format("05.000"))
			}
			if got < d || got >= d+time.Second {
				t.Fatalf("delay %s at +%s: lengthened to %s, want within [%s, %s)", d, frac, got, d, d+time.Second)
			}
		}
	}
	// the workers' function applies it to every kind of task (a webhook's 20 ms, a bulk run's 1 s)
	f := retryDelay(webhooks.Backoff{First: 20 * time.Millisecond, Max: 20 * time.Millisecond, Window: time.Minute})
	for task, want := range map[string]time.Duration{TypeWebhookDeliver: 20 * time.Millisecond, TypeIndexScreen: time.Second} {
		before := time.Now()
		d := f(1, errors.New("HTTP 500"), asynq.NewTask(task, nil))
		after := time.Now()
		if d < want || d >= want+time.Second {
			t.Fatalf("%s: delay %s, want within [%s, %s)", task, d, want, want+time.Second)
		}
		// it ends on a whole second: from the instant it was taken (between before and after), one lies
		// in [before+d, after+d]
		if sec := after.Add(d).Truncate(time.Second); sec.Before(before.Add(d)) {
			t.Fatalf("%s: delay %s from %s does not end on a whole second", task, d, before.Format("05.000000"))
		}
	}
}
