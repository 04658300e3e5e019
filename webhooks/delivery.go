package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	shariah "github.com/shariah-screen/shariah"
)

// Defaults of the endpoints' health.
const (
	DefaultDisableAfter  = 24 * time.Hour
	DefaultDisableStreak = 3
)

// ErrRetry wraps the failure of an attempt that will be retried (the queue schedules it by Backoff).
var ErrRetry = errors.New("delivery attempt failed; retried")

// Deliver makes one attempt of a delivery: the worker's task calls it with asynq's retry count
// (retried: attempts of this task before this one). It returns nil when nothing more is to be done
// (delivered; a final failure recorded; the delivery, its event or its endpoint gone), an error
// wrapping ErrRetry when the queue must retry after Backoff.Delay(retried), and any other error when
// the store failed (the queue retries too: nothing was recorded).
//
// A delivery already final is not sent again: the task of a worker killed after the receiver's 2xx
// was recorded finds it delivered. One killed before that is sent again with the same event id (at
// least once; the receiver deduplicates on Shariah-Event-Id).
func (s *Service) Deliver(ctx context.Context, endpointID, deliveryID string, retried int) error {
	d, ok, err := s.Store.Delivery(ctx, endpointID, deliveryID)
	if err != nil || !ok || d.Final() {
		return err
	}
	e, ok, err := s.Store.Endpoint(ctx, "", endpointID)
	if err != nil {
		return err
	}
	switch {
	case !ok:
		return s.cancel(ctx, d, "the endpoint was deleted")
	case e.Disabled != nil:
		return s.cancel(ctx, d, "the endpoint is disabled: "+e.Disabled.Reason)
	}
	body, ok, err := s.Store.EventBody(ctx, d.EventID)
	if err != nil {
		return err
	}
	if !ok {
		return s.finish(ctx, d, StatusFailed, Result{Err: "the event is past its retention"})
	}
	res := s.Sender.Send(ctx, e.URL, e.Secret, body, d.EventID, d.ID, d.Attempts+1, s.now())
	return s.record(ctx, e, d, res, retried)
}

// record writes an attempt's outcome and the endpoint's health, and says whether to retry.
func (s *Service) record(ctx context.Context, e Endpoint, d Delivery, res Result, retried int) error {
	now := s.now()
	d.Attempts++
	d.LastTriedAt, d.LastStatus, d.LastError, d.NextTry = &now, res.Status, res.Err, nil
	switch {
	case res.OK():
		d.Status = StatusDelivered
		if err := s.Store.Succeeded(ctx, e.ID); err != nil {
			return err
		}
	case res.Gone():
		d.Status = StatusFailed
		if err := s.disable(ctx, e, "the receiver answered 410 Gone", now); err != nil {
			return err
		}
	default:
		since, err := s.Store.Failed(ctx, e.ID, now)
		if err != nil {
			return err
		}
		after := s.DisableAfter
		if after <= 0 {
			after = DefaultDisableAfter
		}
		if now.Sub(since) >= after {
			d.Status = StatusFailed
			reason := fmt.Sprintf("every delivery failed since %s (last: %s)", since.Format(time.RFC3339), res.Err)
			if err := s.disable(ctx, e, reason, now); err != nil {
				return err
			}
			break
		}
		if retried < s.Schedule().Retries() {
			d.Status = StatusRetrying
			next := now.Add(s.Schedule().Delay(retried))
			d.NextTry = &next
			break
		}
		d.Status = StatusFailed
		streak, err := s.Store.Exhausted(ctx, e.ID)
		if err != nil {
			return err
		}
		limit := s.DisableStreak
		if limit <= 0 {
			limit = DefaultDisableStreak
		}
		if streak >= limit {
			reason := fmt.Sprintf("%d deliveries in a row failed after every retry (last: %s)", streak, res.Err)
			if err := s.disable(ctx, e, reason, now); err != nil {
				return err
			}
		}
	}
	if err := s.Store.UpdateDelivery(ctx, d); err != nil {
		return err
	}
	if d.Status == StatusRetrying {
		return fmt.Errorf("%w: %s", ErrRetry, res.Err)
	}
	return nil
}

func (s *Service) disable(ctx context.Context, e Endpoint, reason string, at time.Time) error {
	s.log().Warn("webhook endpoint disabled", "endpoint", e.ID, "user", e.UserID, "reason", reason)
	return s.Store.Disable(ctx, e.ID, Disabled{Reason: reason, At: at})
}

func (s *Service) cancel(ctx context.Context, d Delivery, why string) error {
	return s.finish(ctx, d, StatusCancelled, Result{Err: why})
}

func (s *Service) finish(ctx context.Context, d Delivery, status string, res Result) error {
	d.Status, d.LastError, d.NextTry = status, res.Err, nil
	return s.Store.UpdateDelivery(ctx, d)
}

// Replay queues a final delivery again (a new task series with the full retry schedule; the same
// event id and body). A delivery still pending or retrying is 409 (its task will try it), unless it is
// stuck: its task was lost.
func (s *Service) Replay(ctx context.Context, userID, plan, endpointID, deliveryID string) (Delivery, error) {
	if _, err := s.Get(ctx, userID, plan, endpointID); err != nil {
		return Delivery{}, err
	}
	d, ok, err := s.delivery(ctx, endpointID, deliveryID)
	if err != nil || !ok {
		return Delivery{}, err
	}
	if !d.Final() && !d.Stuck(s.now()) {
		return Delivery{}, shariah.Errorf(shariah.ECONFLICT, "Delivery %s is %s: its next attempt is queued.", d.ID, d.Status)
	}
	if _, ok, err := s.Store.EventBody(ctx, d.EventID); err != nil {
		return Delivery{}, err
	} else if !ok {
		return Delivery{}, shariah.Errorf(shariah.ECONFLICT, "The event of delivery %s is past its retention.", d.ID)
	}
	d.Status, d.NextTry, d.Replays = StatusPending, nil, d.Replays+1
	if err := s.Store.UpdateDelivery(ctx, d); err != nil {
		return Delivery{}, err
	}
	if err := s.Queue.EnqueueDelivery(ctx, Task{TaskID: taskID(d), MaxRetry: s.Schedule().Retries(), EndpointID: endpointID, DeliveryID: d.ID}); err != nil {
		return Delivery{}, err
	}
	return d, nil
}

// delivery reads a delivery of an endpoint, ENOTFOUND when there is none.
func (s *Service) delivery(ctx context.Context, endpointID, id string) (Delivery, bool, error) {
	if !ValidDeliveryID(id) {
		return Delivery{}, false, shariah.Errorf(shariah.ENOTFOUND, "Delivery %s not found.", id)
	}
	d, ok, err := s.Store.Delivery(ctx, endpointID, id)
	if err == nil && !ok {
		err = shariah.Errorf(shariah.ENOTFOUND, "Delivery %s not found.", id)
	}
	return d, ok && err == nil, err
}

// TestResult is the answer of POST /api/webhooks/{id}/test: the delivery as recorded and the attempt.
type TestResult struct {
	Delivery   Delivery `json:"delivery"`
	Status     int      `json:"status"` // the receiver's HTTP status; 0 when none came
	Error      string   `json:"error,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// Test sends a signed test event to an endpoint now (one attempt, while the caller waits) and records it
// among the deliveries (replayable like any other). A 2xx re-enables a disabled endpoint: a test is how
// a user shows the receiver is fixed.
func (s *Service) Test(ctx context.Context, userID, plan, id string) (TestResult, error) {
	e, err := s.Get(ctx, userID, plan, id)
	if err != nil {
		return TestResult{}, err
	}
	now := s.now()
	evID := "test_" + uuid.Must(uuid.NewV7()).String()
	data, _ := json.Marshal(map[string]string{"message": "A test event from POST /api/webhooks/" + id + "/test.", "endpoint_id": id})
	body, err := json.Marshal(Payload{ID: evID, Type: KindTest, Kinds: []string{KindTest}, CreatedAt: now, Data: data})
	if err != nil {
		return TestResult{}, err
	}
	if err := s.Store.PutEvent(ctx, evID, body, s.retention()); err != nil {
		return TestResult{}, err
	}
	d := Delivery{ID: DeliveryID(id, evID), EndpointID: id, EventID: evID, Status: StatusPending, CreatedAt: now}
	if _, err := s.Store.CreateDeliveries(ctx, []Delivery{d}, s.retention()); err != nil {
		return TestResult{}, err
	}
	res := s.Sender.Send(ctx, e.URL, e.Secret, body, evID, d.ID, 1, now)
	at := s.now()
	d.Attempts, d.LastTriedAt, d.LastStatus, d.LastError, d.Status = 1, &at, res.Status, res.Err, StatusFailed
	if res.OK() {
		d.Status = StatusDelivered
		if e.Disabled != nil {
			if err := s.Store.Enable(ctx, id); err != nil {
				return TestResult{}, err
			}
		}
	}
	if err := s.Store.UpdateDelivery(ctx, d); err != nil {
		return TestResult{}, err
	}
	return TestResult{Delivery: d, Status: res.Status, Error: res.Err, DurationMS: res.Duration.Milliseconds()}, nil
}
