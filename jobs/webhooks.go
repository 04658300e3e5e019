package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/shariah-screen/shariah/webhooks"
)

// TypeWebhookDeliver is a webhook delivery's task: the task id is derived from the delivery id
// (webhooks.Task.TaskID), so a fan-out run twice queues it once.
const TypeWebhookDeliver = "webhook:deliver"

// deliveryTimeout bounds one attempt's task: the sender's own timeout (10 s) and the store's writes.
const deliveryTimeout = 30 * time.Second

var _ webhooks.Queue = (*Queue)(nil)

// EnqueueDelivery queues a delivery on the webhooks queue, retried MaxRetry times with the worker's
// webhook backoff. A task id already queued (pending, retrying or running) is no error: the delivery
// is on its way. A finished task is not retained (the delivery record keeps its outcome), so a replay
// takes a new id.
//
// A worker killed mid-delivery loses nothing: asynq keeps the running task in its active set under
// a 30 s lease that the worker's heartbeat extends; once the lease has been expired for 30 s more,
// any live worker's recoverer (it runs at start and every minute) moves the task to retry, and it
// runs again (asynq v0.26.0: recoverer.go; TestWorkerKilledMidDeliveryLosesNothing).
func (q *Queue) EnqueueDelivery(ctx context.Context, t webhooks.Task) error {
	err := q.enqueue(ctx, TypeWebhookDeliver, t, asynq.TaskID(t.TaskID),
		asynq.Queue("webhooks"), asynq.MaxRetry(t.MaxRetry), asynq.Timeout(deliveryTimeout))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil
	}
	return queueError(err)
}

// RegisterWebhooks registers the webhook:deliver handler: one attempt per run; the service records it
// and answers webhooks.ErrRetry when the schedule has another.
func RegisterWebhooks(mux *asynq.ServeMux, s *webhooks.Service) {
	mux.HandleFunc(TypeWebhookDeliver, func(ctx context.Context, t *asynq.Task) error {
		var p webhooks.Task
		if err := json.Unmarshal(t.Payload(), &p); err != nil || p.DeliveryID == "" || p.EndpointID == "" {
			return fmt.Errorf("bad payload: %w", asynq.SkipRetry)
		}
		retried, _ := asynq.GetRetryCount(ctx)
		return s.Deliver(ctx, p.EndpointID, p.DeliveryID, retried)
	})
}

// retryDelay is the workers' retry delay: a webhook delivery's by its schedule (a task whose worker
// died mid-attempt again after a second: the receiver did not fail, the worker did), every other
// task's by RetryDelay; never shorter than that (notEarly).
func retryDelay(b webhooks.Backoff) asynq.RetryDelayFunc {
	return func(n int, err error, t *asynq.Task) time.Duration {
		var d time.Duration
		switch {
		case t.Type() != TypeWebhookDeliver:
			d = RetryDelay(n, err, t)
		case errors.Is(err, asynq.ErrLeaseExpired):
			d = time.Second
		default:
			d = b.Delay(n)
		}
		return notEarly(time.Now(), d)
	}
}

// notEarly lengthens a retry delay from now so that it ends on a whole second. asynq keeps a retry's
// time in whole seconds, truncated (rdb.Retry stores processAt.Unix()): a delay ending inside a second
// is due at that second's start, up to a second early, and a delay shorter than what is left of the
// current second is due at once. (A webhook retry due 20 ms after a failure was sent 3 ms after it, and
// TestAnEndpointThatKeepsFailingIsDisabled failed about once in ten: the endpoint's second failure came
// before the 10 ms of its time rule.) Rounded up, a retry is never sent before its schedule, and at most
// a second after it (a delivery's next_try is the earliest).
func notEarly(now time.Time, d time.Duration) time.Duration {
	at := now.Add(d)
	if r := at.Sub(at.Truncate(time.Second)); r > 0 {
		d += time.Second - r
	}
	return d
}
