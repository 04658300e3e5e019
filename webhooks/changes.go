package webhooks

import (
	"context"
	"encoding/json"

	"github.com/shariah-screen/shariah/screening"
)

// ChangeStream is the change log as webhooks read it: each change an Event whose body is the change
// as GET /api/changes serves it.
type ChangeStream struct {
	Log screening.ChangeLog
	// OnTrimmed hears of changes the retention dropped before the relay read them (nil: not reported).
	OnTrimmed func(newestDropped string)
}

var _ EventSource = (*ChangeStream)(nil)

// EventsAfter reads up to limit changes after cursor ("" is the start of the log).
func (c *ChangeStream) EventsAfter(ctx context.Context, cursor string, limit int) ([]Event, string, error) {
	if cursor == "" {
		cursor = screening.CursorStart
	}
	scan, err := c.Log.ChangesAfter(ctx, cursor, limit, nil)
	if err != nil {
		return nil, "", err
	}
	if scan.Trimmed != "" && c.OnTrimmed != nil && cursor != screening.CursorStart && screening.CompareChangeIDs(cursor, scan.Trimmed) < 0 {
		c.OnTrimmed(scan.Trimmed)
	}
	out := make([]Event, 0, len(scan.Changes))
	for _, ch := range scan.Changes {
		body, err := json.Marshal(ch)
		if err != nil {
			return nil, "", err
		}
		out = append(out, Event{ID: ch.ID, Time: ch.At, Kinds: ch.Kinds, Symbol: ch.Symbol, Ruleset: ch.Ruleset, Body: body})
	}
	next := scan.Last
	if next == "" {
		next = cursor
	}
	return out, next, nil
}
