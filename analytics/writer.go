package analytics

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// UsageWriter batches usage events into ClickHouse. Record never blocks: events wait in a bounded
// buffer and are written in batches when the batch is full or the flush interval passes (ClickHouse
// wants few large inserts). When the buffer is full, or ClickHouse keeps refusing a batch, events are
// dropped and counted; the request that produced them is never slowed.
type UsageWriter struct {
	db        *DB
	in        chan shariah.UsageEvent
	flushReq  chan chan error
	batchSize int
	interval  time.Duration
	log       *slog.Logger

	written atomic.Int64
	dropped atomic.Int64
	failed  atomic.Int64 // batches given up after retries
}

var _ shariah.UsageRecorder = (*UsageWriter)(nil)

// NewUsageWriter returns a writer; Run must be running for events to be written.
func NewUsageWriter(db *DB, buffer, batchSize int, interval time.Duration, log *slog.Logger) *UsageWriter {
	return &UsageWriter{db: db, in: make(chan shariah.UsageEvent, buffer), flushReq: make(chan chan error),
		batchSize: batchSize, interval: interval, log: log}
}

// Record queues an event, or drops and counts it when the buffer is full.
func (w *UsageWriter) Record(e shariah.UsageEvent) {
	select {
	case w.in <- e:
	default:
		w.dropped.Add(1)
	}
}

// Stats returns the events written, dropped, and the batches given up.
func (w *UsageWriter) Stats() (written, dropped, failedBatches int64) {
	return w.written.Load(), w.dropped.Load(), w.failed.Load()
}

// Flush writes everything queued so far and returns when it is written (or failed).
func (w *UsageWriter) Flush(ctx context.Context) error {
	done := make(chan error, 1)
	select {
	case w.flushReq <- done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run writes batches until ctx ends, then writes what is left (bounded by a few seconds).
func (w *UsageWriter) Run(ctx context.Context) error {
	batch := make([]shariah.UsageEvent, 0, w.batchSize)
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	// add queues one event, writing the batch when it is full.
	add := func(wctx context.Context, e shariah.UsageEvent) {
		batch = append(batch, e)
		if len(batch) >= w.batchSize {
			_ = w.writeWithRetry(wctx, batch)
			batch = batch[:0]
		}
	}
	// flush takes everything queued so far and writes it.
	flush := func(wctx context.Context) error {
		for {
			select {
			case e := <-w.in:
				add(wctx, e)
				continue
			default:
			}
			break
		}
		if len(batch) == 0 {
			return nil
		}
		err := w.writeWithRetry(wctx, batch)
		batch = batch[:0]
		return err
	}
	for {
		select {
		case e := <-w.in:
			add(ctx, e)
		case <-tick.C:
			_ = flush(ctx)
		case done := <-w.flushReq:
			done <- flush(ctx)
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return flush(fctx)
		}
	}
}

func (w *UsageWriter) writeWithRetry(ctx context.Context, batch []shariah.UsageEvent) error {
	var err error
	backoff := 200 * time.Millisecond
	for attempt := 0; attempt < 3; attempt++ {
		if err = w.insert(ctx, batch); err == nil {
			w.written.Add(int64(len(batch)))
			return nil
		}
		select {
		case <-ctx.Done():
			attempt = 3
		case <-time.After(backoff):
			backoff *= 2
		}
	}
	w.failed.Add(1)
	w.dropped.Add(int64(len(batch)))
	if w.log != nil {
		w.log.Error("usage batch dropped", "events", len(batch), "error", err.Error())
	}
	return err
}

func (w *UsageWriter) insert(ctx context.Context, batch []shariah.UsageEvent) error {
	b, err := w.db.Conn.PrepareBatch(ctx, "INSERT INTO "+w.db.table("usage_events")+
		" (request_id, key_id, user_id, key_prefix, method, route, status, tokens, overage, latency_us, ts, ts_ms)")
	if err != nil {
		return err
	}
	for _, e := range batch {
		t := e.Time.UTC()
		if err := b.Append(e.RequestID, e.KeyID, e.UserID, e.KeyPrefix, e.Method, e.Route, uint16(e.Status),
			uint32(max(e.Tokens, 0)), uint32(max(e.Overage, 0)), uint64(e.Latency.Microseconds()),
			t.Truncate(time.Second), uint64(t.UnixMilli())); err != nil {
			_ = b.Abort()
			return err
		}
	}
	return b.Send()
}
