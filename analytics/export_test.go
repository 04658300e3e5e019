package analytics

import "context"

// SegmentBytes is the size a journal segment is created at, for tests that build one as a killed
// process leaves it.
const SegmentBytes = segmentBytes

// ShipBudget ships as the interval does, with a budget of bytes instead of what is pending: the test
// stands for the events recorded while an interval's shipping runs.
func (w *UsageWriter) ShipBudget(ctx context.Context, bytes int64) error {
	w.adoptMu.Lock()
	j := w.own
	w.adoptMu.Unlock()
	return w.ship(ctx, j, &shipper{buf: make([]byte, shipBuffer)}, &bytes)
}

// MigrateWith applies the migrations up to version upTo (0: all), calling hook before each step of a
// code migration: a hook that returns an error stops the migration there, as a crash would.
func (db *DB) MigrateWith(ctx context.Context, upTo uint32, hook func(step string) error) ([]string, error) {
	return db.migrate(ctx, upTo, hook)
}
