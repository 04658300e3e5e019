// Package webhooks pushes verdict changes to users' HTTPS endpoints: the endpoints and their filters,
// per-plan limits, signing, the deliveries and their retry schedule, the endpoints' health (disabled
// when they keep failing or answer 410), and the policy of safe targets (no loopback, private,
// link-local or metadata addresses, checked at connect time on every delivery).
//
// The events come from the change log (screening.ChangeLog, issue 29 items 1 and 2) through a small
// contract: an Event, an EventSource that lists events after a cursor (ChangeStream reads the change
// log), and FanOut, which turns events into one delivery per matching endpoint; the deliveries run on
// the asynq workers (package jobs), one task each, and the Relay follows the log.
package webhooks

import (
	"context"
	"encoding/json"
	"time"

	"github.com/shariah-screen/shariah/screening"
)

// KindTest is the kind of the event POST /api/webhooks/{id}/test sends; not subscribable.
const KindTest = "webhook.test"

// Kinds are the kinds an endpoint may subscribe to, in display order: the change feed's own
// (screening.Change.Kinds). A change may carry several (a new filing can move the overall verdict and
// change the data source at once).
var Kinds = []string{screening.ChangeOverall, screening.ChangeMethodology, screening.ChangeDataSource}

// Event is a change event as webhooks deliver it: what the change stream records, reduced to what
// matching needs (symbol, ruleset, kinds) and the event's JSON as the feed serves it (Body).
type Event struct {
	ID      string    // sortable (the stream's id): deliveries of one event carry it as the idempotency key
	Time    time.Time // when the change happened: an endpoint gets the events of its lifetime only
	Kinds   []string
	Symbol  string
	Ruleset string
	Body    json.RawMessage // the event as GET /api/changes serves it: a delivery's data
}

// EventSource lists the events after a cursor, oldest first, up to limit, and the cursor to read on
// from (past what it looked through, events it could not read included). The change log is one
// (ChangeStream).
type EventSource interface {
	EventsAfter(ctx context.Context, cursor string, limit int) (events []Event, next string, err error)
}

// Payload is the JSON body a delivery POSTs, the same bytes on every attempt and replay (the signature
// changes with its timestamp, the body never does).
type Payload struct {
	ID        string          `json:"id"`   // the event id
	Type      string          `json:"type"` // "verdict.change", or KindTest
	Kinds     []string        `json:"kinds"`
	Symbol    string          `json:"symbol,omitempty"`
	Ruleset   string          `json:"ruleset,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// TypeChange is the type of a change event's payload.
const TypeChange = "verdict.change"

// payloadOf encodes the body delivered for an event.
func payloadOf(ev Event) ([]byte, error) {
	data := ev.Body
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	kinds := ev.Kinds
	if kinds == nil {
		kinds = []string{}
	}
	return json.Marshal(Payload{ID: ev.ID, Type: TypeChange, Kinds: kinds, Symbol: ev.Symbol, Ruleset: ev.Ruleset,
		CreatedAt: ev.Time.UTC(), Data: data})
}
