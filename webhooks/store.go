package webhooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/shariah-screen/shariah/account"
)

// Store keeps endpoints, their health, the events delivered and the deliveries (redis.WebhookStore).
type Store interface {
	// CreateEndpoint stores e unless its user has max endpoints already (ErrLimit).
	CreateEndpoint(ctx context.Context, e Endpoint, max int) error
	// Endpoint reads an endpoint with its disabled state; userID "" reads anyone's (the workers).
	Endpoint(ctx context.Context, userID, id string) (Endpoint, bool, error)
	Endpoints(ctx context.Context, userID string) ([]Endpoint, error) // the user's, oldest first
	AllEndpoints(ctx context.Context) ([]Endpoint, error)             // every user's (the fan-out)
	DeleteEndpoint(ctx context.Context, userID, id string) (bool, error)
	SetSecret(ctx context.Context, userID, id, secret string) (bool, error)
	// Disable records why an endpoint stopped receiving deliveries; Enable clears it and its health.
	Disable(ctx context.Context, id string, d Disabled) error
	Enable(ctx context.Context, id string) error

	// Health: Succeeded clears the failure record; Failed notes a failed attempt and returns when the
	// endpoint's failures began (kept from the first until a success); Exhausted counts a delivery that
	// ran out of retries and returns the streak of such deliveries since the last success.
	Succeeded(ctx context.Context, id string) error
	Failed(ctx context.Context, id string, at time.Time) (since time.Time, err error)
	Exhausted(ctx context.Context, id string) (streak int, err error)

	// PutEvent keeps a delivered body for ttl (retries and replays send it again).
	PutEvent(ctx context.Context, eventID string, body []byte, ttl time.Duration) error
	EventBody(ctx context.Context, eventID string) ([]byte, bool, error)

	// CreateDeliveries stores the deliveries not yet stored (by endpoint and id) and reports, for each,
	// whether it must be queued: new, or stored earlier and still pending, never replayed (a fan-out
	// that stopped between storing and queueing; a replay queues its own task). Kept for ttl.
	CreateDeliveries(ctx context.Context, ds []Delivery, ttl time.Duration) ([]bool, error)
	Delivery(ctx context.Context, endpointID, id string) (Delivery, bool, error)
	Deliveries(ctx context.Context, endpointID string, limit int) ([]Delivery, error) // newest first
	// UpdateDelivery writes a delivery's state (status, attempts, last status and error, times); a
	// delivery past its retention stays gone.
	UpdateDelivery(ctx context.Context, d Delivery) error

	// RelayCursor is the id of the last event the relay fanned out ("" before the first).
	RelayCursor(ctx context.Context) (string, error)
	SetRelayCursor(ctx context.Context, cursor string) error
}

// Queue runs deliveries on the workers: one task per delivery attempt series, under taskID (a second
// enqueue of the same id is no error and queues nothing), retried with the service's Backoff.
type Queue interface {
	EnqueueDelivery(ctx context.Context, t Task) error
}

// Task is a queued delivery.
type Task struct {
	TaskID     string `json:"-"`
	MaxRetry   int    `json:"-"` // the retries of Backoff (Backoff.Retries)
	EndpointID string `json:"endpoint_id"`
	DeliveryID string `json:"delivery_id"`
}

// WatchlistReader reads a user's watchlist (account.WatchlistStore has it).
type WatchlistReader interface {
	Watchlist(ctx context.Context, userID, id string) (account.Watchlist, bool, error)
}

// Delivery statuses.
const (
	StatusPending   = "pending"   // queued, not tried yet
	StatusRetrying  = "retrying"  // tried and failed; next_try says when again
	StatusDelivered = "delivered" // a 2xx came back
	StatusFailed    = "failed"    // retries exhausted, or 410, or a failed test
	StatusCancelled = "cancelled" // the endpoint was disabled or deleted before it went
)

// Delivery is one event for one endpoint, with its attempts.
type Delivery struct {
	ID          string     `json:"id"`
	EndpointID  string     `json:"endpoint_id"`
	EventID     string     `json:"event_id"`
	Status      string     `json:"status"`
	Attempts    int        `json:"attempts"`
	LastStatus  int        `json:"last_status,omitempty"` // the receiver's last HTTP status
	LastError   string     `json:"last_error,omitempty"`
	NextTry     *time.Time `json:"next_try,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	LastTriedAt *time.Time `json:"last_tried_at,omitempty"`
	Replays     int        `json:"replays"`
}

// Final reports a delivery that no task will try again unless it is replayed.
func (d Delivery) Final() bool {
	return d.Status == StatusDelivered || d.Status == StatusFailed || d.Status == StatusCancelled
}

// StuckAfter is how long past its due time a delivery that is not final must be for its task to be
// taken as lost (asynq archived it: a worker died during its last retry, or the store failed on its
// last attempt), so that it may be replayed.
const StuckAfter = time.Hour

// Stuck reports a delivery that is not final and is over StuckAfter past its next try (its last try,
// or its creation, when it has none).
func (d Delivery) Stuck(now time.Time) bool {
	if d.Final() {
		return false
	}
	due := d.CreatedAt
	if d.LastTriedAt != nil {
		due = *d.LastTriedAt
	}
	if d.NextTry != nil {
		due = *d.NextTry
	}
	return now.Sub(due) > StuckAfter
}

// DeliveryID is the id of an event's delivery to an endpoint: derived from both, so a fan-out run
// twice over the same event stores and queues nothing new.
func DeliveryID(endpointID, eventID string) string {
	h := sha256.Sum256([]byte(endpointID + "\x00" + eventID))
	return "dlv_" + hex.EncodeToString(h[:12])
}

// ValidDeliveryID reports an id shaped like DeliveryID's (malformed ids are 404 without a lookup).
func ValidDeliveryID(s string) bool {
	if len(s) != 28 || s[:4] != "dlv_" {
		return false
	}
	_, err := hex.DecodeString(s[4:])
	return err == nil
}

// taskID is the queue's id of a delivery's task series: the first, then one per replay.
func taskID(d Delivery) string {
	if d.Replays == 0 {
		return "webhook:" + d.ID
	}
	return "webhook:" + d.ID + ":replay:" + strconv.Itoa(d.Replays)
}
