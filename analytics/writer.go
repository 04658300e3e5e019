package analytics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/shariah-screen/shariah/account"
)

// UsageWriterConfig configures the usage writer.
type UsageWriterConfig struct {
	// SpoolDir holds the journal of events not yet in ClickHouse (see spool.go); required.
	SpoolDir string
	// SpoolMaxBytes caps the journal; past it, events are dropped, counted, logged and shown in health.
	SpoolMaxBytes int64
	BatchSize     int           // events per ClickHouse insert at most (default DefaultBatchSize); a batch also ends with its journal segment
	Interval      time.Duration // how often the journal is shipped
	Log           *slog.Logger  // optional
}

// UsageWriter records usage events in a durable journal on local disk and ships them to ClickHouse in
// batches. Record never waits on ClickHouse: it appends one line to the journal (a write(2), about a
// microsecond) before the response is sent, so an event survives ClickHouse being down, hung or
// restarting, and a kill -9 of the process. When ClickHouse is unavailable the journal grows (bounded by
// SpoolMaxBytes) and is shipped in order when it returns. A batch that may be in ClickHouse without its
// position recorded (a crash in between, or an insert whose reply was lost) is not inserted again: the
// rows ClickHouse holds are looked up first (alreadyShipped), so each event is in usage_events once.
type UsageWriter struct {
	db    *DB
	cfg   UsageWriterConfig
	log   *slog.Logger
	own   *journal
	base  string
	flush chan chan error

	adoptMu sync.Mutex
	adopted []*journal // slots of processes that died, drained by this one

	pending  atomic.Int64 // journal bytes not yet shipped
	written  atomic.Int64 // events inserted into ClickHouse
	dropped  atomic.Int64 // events refused because the journal was full (or could not be written)
	corrupt  atomic.Int64 // journal lines that did not decode (skipped)
	replayed atomic.Int64 // events found in ClickHouse already when shipping from an unsure position
	down     atomic.Bool  // the last insert failed: events are being held
	full     atomic.Bool  // the journal is at its cap: events are being dropped
	lastErr  atomic.Pointer[string]

	encPool sync.Pool
	// nextID numbers the events this writer records, from a random start: ids are unique within the
	// process and, between processes, overlap only if two random starts fall within the number of events
	// either records (about 2n/2^64 for n events). Successive ids ascend, so the journal is nearly in
	// usage_events' key order (user_id, ts, event_id) for each user, and the shipper puts a batch in that
	// order with few moves before its insert (usage_order.go).
	nextID atomic.Uint64
}

var _ account.UsageRecorder = (*UsageWriter)(nil)

// NewUsageWriter opens the writer's journal in cfg.SpoolDir (a free slot of it). Run must be running
// for events to reach ClickHouse; Close releases the journal.
func NewUsageWriter(db *DB, cfg UsageWriterConfig) (*UsageWriter, error) {
	if cfg.SpoolDir == "" {
		return nil, errors.New("usage writer: no spool directory")
	}
	if cfg.BatchSize < 1 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.SpoolMaxBytes <= 0 {
		cfg.SpoolMaxBytes = 1 << 30
	}
	dir, err := filepath.Abs(cfg.SpoolDir)
	if err != nil {
		return nil, err
	}
	j, err := openSlot(dir)
	if err != nil {
		return nil, err
	}
	w := &UsageWriter{db: db, cfg: cfg, log: cfg.Log, own: j, base: dir, flush: make(chan chan error)}
	w.encPool.New = func() any { b := make([]byte, 0, 256); return &b }
	w.nextID.Store(rand.Uint64())
	p, err := j.pending()
	if err != nil {
		j.close()
		return nil, err
	}
	w.pending.Store(p)
	w.adopt()
	if p > 0 && w.log != nil {
		w.log.Info("usage spool: events from an earlier run will be shipped", "dir", j.dir, "pending_bytes", p)
	}
	return w, nil
}

// Close releases the journal (Run must have returned).
func (w *UsageWriter) Close() {
	w.adoptMu.Lock()
	defer w.adoptMu.Unlock()
	for _, j := range w.adopted {
		j.close()
	}
	w.adopted = nil
	w.own.close()
}

// Record appends an event to the journal, or drops and counts it when the journal is full. An event
// without an EventID gets one here (never 0): the id the usage history deduplicates on is the
// server's, so a client that reuses its X-Request-ID still gets one row per request.
func (w *UsageWriter) Record(e account.UsageEvent) {
	for e.EventID == 0 {
		e.EventID = w.nextID.Add(1)
	}
	bp := w.encPool.Get().(*[]byte)
	line := encodeEvent((*bp)[:0], e)
	if w.pending.Load()+int64(len(line)) > w.cfg.SpoolMaxBytes {
		w.drop("full", errors.New("the usage spool is full"))
	} else if err := w.own.append(line); err != nil {
		w.drop("write", err)
	} else {
		w.pending.Add(int64(len(line)))
		if w.full.Load() {
			w.full.Store(false)
			if w.log != nil {
				w.log.Warn("usage spool accepting events again", "dropped_total", w.dropped.Load())
			}
		}
	}
	*bp = line
	w.encPool.Put(bp)
}

// drop counts a lost event, logging the change to full (not every event).
func (w *UsageWriter) drop(why string, err error) {
	n := w.dropped.Add(1)
	if !w.full.Swap(true) && w.log != nil {
		w.log.Error("usage spool dropping events", "reason", why, "error", err.Error(), "max_bytes", w.cfg.SpoolMaxBytes, "dropped_total", n)
	}
}

// Stats returns the writer's counters and state.
func (w *UsageWriter) Stats() account.UsageSpoolStats {
	s := account.UsageSpoolStats{Status: "ok", PendingBytes: max(w.pending.Load(), 0), MaxBytes: w.cfg.SpoolMaxBytes,
		Written: w.written.Load(), Dropped: w.dropped.Load(), Corrupt: w.corrupt.Load(), Replayed: w.replayed.Load()}
	if w.down.Load() {
		s.Status = "spooling"
		if e := w.lastErr.Load(); e != nil {
			s.Error = *e
		}
	}
	if w.full.Load() {
		s.Status = "full"
	}
	return s
}

// Flush ships everything recorded so far and returns when it is in ClickHouse, or the insert's error.
func (w *UsageWriter) Flush(ctx context.Context) error {
	done := make(chan error, 1)
	select {
	case w.flush <- done:
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

// Run ships the journal every interval until ctx ends, then once more (bounded by a few seconds).
// While ClickHouse refuses, it retries with a growing pause (up to 10 s); nothing is dropped.
func (w *UsageWriter) Run(ctx context.Context) error {
	tick := time.NewTicker(w.cfg.Interval)
	defer tick.Stop()
	adoptTick := time.NewTicker(adoptEvery)
	defer adoptTick.Stop()
	sh := &shipper{buf: make([]byte, shipBuffer)}
	var retryAt time.Time
	backoff := 200 * time.Millisecond
	ship := func(ctx context.Context, force bool) error {
		if !force && time.Now().Before(retryAt) {
			return nil
		}
		err := w.shipAll(ctx, sh, force)
		if err != nil {
			retryAt = time.Now().Add(backoff)
			backoff = min(backoff*2, 10*time.Second)
		} else {
			backoff = 200 * time.Millisecond
			retryAt = time.Time{}
		}
		return err
	}
	for {
		select {
		case <-tick.C:
			_ = ship(ctx, false)
		case <-adoptTick.C:
			w.adopt()
		case done := <-w.flush:
			w.adopt()
			done <- ship(ctx, true)
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return ship(fctx, true)
		}
	}
}

// DefaultBatchSize is the events of one insert at most when UsageWriterConfig.BatchSize is not set. A
// batch also ends where its journal segment ends (one read never spans two: segmentBytes, about 72,000
// events of 220 bytes), so with this default that is the only cut: one or two inserts an interval up to
// about 70,000 req/s. Every insert costs ClickHouse a part in usage_events and in each view's table, and
// their merges, whatever its rows: 14-37 ms of its CPU (BenchmarkUsageInsertCPUBatchSize, two runs on
// 2026-11-27: 2.04, 1.30 and 1.10 us an event in batches of 25,000, 50,000 and at most 100,000; 1.32,
// 1.04 and 0.88). At 50,000 (the default until then) an edge above 50,000 req/s also cut every
// interval's batch at 50,000 (10-13 inserts in a 6 s run at 50,000-67,000 req/s; 9-10 since).
const DefaultBatchSize = 100000

// shipBuffer is the journal read per batch: a whole segment, the most one read takes.
const shipBuffer = segmentBytes

// adoptEvery is how often the writer looks for the slots of processes that died (a directory listing).
const adoptEvery = 10 * time.Second

// insertTimeout bounds one insert: a hung ClickHouse (SIGSTOP) must not hold the shipper forever.
const insertTimeout = 10 * time.Second

// shipAll ships every journal (adopted ones first: they are older) until an insert fails, and until
// nothing is left when forced (Flush, shutdown); on the interval, only what was pending when it started:
// events recorded while it ships wait for the next interval. (Shipping on until caught up inserted every
// few hundred events under load, the events of one insert's duration, and every insert makes a part in
// usage_events and in each view's table: ClickHouse spent more on merging them than on anything else.)
func (w *UsageWriter) shipAll(ctx context.Context, sh *shipper, force bool) error {
	budget := int64(-1) // bytes still to ship this time; -1: until nothing is left
	sh.pace = pacer{}
	if !force {
		budget = max(w.pending.Load(), 0)
		sh.pace = newPacer(ctx, w.cfg.Interval)
	}
	w.adoptMu.Lock()
	journals := append(append([]*journal(nil), w.adopted...), w.own)
	w.adoptMu.Unlock()
	for _, j := range journals {
		if err := w.ship(ctx, j, sh, &budget); err != nil {
			return err
		}
	}
	w.dropDrained()
	return nil
}

// shipper is what the shipping goroutine reuses from batch to batch: the journal's read buffer, the
// batch's lines and the insert's columns. Nothing in it outlives a batch: the columns' strings are
// slices of buf, copied into the insert before buf is read again.
type shipper struct {
	buf   []byte
	lines [][]byte
	cols  usageColumns
	order usageOrder // puts a batch in usage_events' key order before its insert (usage_order.go)
	pace  pacer      // this ship's (shipAll sets it)
}

// usageColumns holds a batch of usage events column by column, in usage_events' order.
type usageColumns struct {
	id                                         []uint64
	rid, kid, uid, kp, meth, route, plan, code []string
	status                                     []uint16
	tokens, overage                            []uint32
	lat, ms                                    []uint64
	ts                                         []time.Time
}

func (c *usageColumns) reset() {
	c.id = c.id[:0]
	c.rid, c.kid, c.uid, c.kp, c.meth, c.route, c.plan, c.code = c.rid[:0], c.kid[:0], c.uid[:0], c.kp[:0], c.meth[:0], c.route[:0], c.plan[:0], c.code[:0]
	c.status, c.tokens, c.overage, c.lat, c.ms, c.ts = c.status[:0], c.tokens[:0], c.overage[:0], c.lat[:0], c.ms[:0], c.ts[:0]
}

func (c *usageColumns) len() int { return len(c.rid) }

func (c *usageColumns) add(e account.UsageEvent) {
	t := e.Time.UTC()
	c.id = append(c.id, e.EventID)
	c.rid, c.kid, c.uid, c.kp = append(c.rid, e.RequestID), append(c.kid, e.KeyID), append(c.uid, e.UserID), append(c.kp, e.KeyPrefix)
	c.meth, c.route, c.plan, c.code = append(c.meth, e.Method), append(c.route, e.Route), append(c.plan, e.Plan), append(c.code, e.ErrorCode)
	c.status = append(c.status, uint16(e.Status))
	c.tokens, c.overage = append(c.tokens, uint32(max(e.Tokens, 0))), append(c.overage, uint32(max(e.Overage, 0)))
	c.lat, c.ms = append(c.lat, uint64(max(e.Latency.Microseconds(), 0))), append(c.ms, uint64(max(t.UnixMilli(), 0)))
	c.ts = append(c.ts, t.Truncate(time.Second))
}

// drop removes the first n rows.
func (c *usageColumns) drop(n int) {
	c.id = c.id[n:]
	c.rid, c.kid, c.uid, c.kp, c.meth, c.route, c.plan, c.code = c.rid[n:], c.kid[n:], c.uid[n:], c.kp[n:], c.meth[n:], c.route[n:], c.plan[n:], c.code[n:]
	c.status, c.tokens, c.overage, c.lat, c.ms, c.ts = c.status[n:], c.tokens[n:], c.overage[n:], c.lat[n:], c.ms[n:], c.ts[n:]
}

// alreadyShipped returns how many leading rows of a batch read from an unsure position (journal.unsure)
// are in ClickHouse already. The position is unsure after a restart (the process before may have
// inserted the batch and stopped before recording it) and after any failed insert (a reply lost to a
// broken connection or a killed server says nothing about whether the server committed the rows): what
// is stored decides, never the reply. A batch is the lines that follow the position, in order, sent as
// one INSERT whose blocks the server squashes into one (BatchSize is at most 1,000,000 rows, under
// ClickHouse's 1,048,576 of one insert block; see insertChunk), and
// on 18.16 a block lands in MergeTree as one part per month it spans, each written whole or not at all,
// in the block's row order of months; so the rows already there are a prefix of the batch in every case
// but a batch spanning a month's end cut between its parts, where the lookups still find each row that
// is there (see below). They are found with at most 2 + log2(batch) point lookups on (user_id, ts,
// event_id): the event id is the server's, unique per request, so an event is never taken for another
// (a client's reused X-Request-ID never drops one). Lines of the u1 and u2 formats (no event id: left by
// an edge before the upgrade) are looked up by request id, as that edge did. While migration 006 moves
// the rows of the old table (rekey.go), they are looked up in both tables.
func (w *UsageWriter) alreadyShipped(ctx context.Context, qid string, c *usageColumns) (int, error) {
	// An insert of this batch that the edge gave up on (a timeout against a hung server) may still be
	// running on the server, which commits a block as soon as it has read it: until it ends, what is
	// stored is not known yet. (The insert is sent under the batch's query id; the server refuses a second
	// query with an id that is running, which covers one registered after this check.)
	var running uint64
	if err := w.db.Conn.QueryRow(ctx, "SELECT count() FROM system.processes WHERE query_id = ?", qid).Scan(&running); err != nil {
		return 0, err
	}
	if running > 0 {
		return 0, fmt.Errorf("usage spool: an earlier insert of this batch (query %s) is still running", qid)
	}
	in := func(i int) (bool, error) {
		var n uint64
		q := "SELECT count() FROM " + w.db.usageRows() + " WHERE user_id = ? AND ts = toDateTime(?) AND event_id = ?"
		args := []any{c.uid[i], c.ts[i].Unix(), c.id[i]}
		if c.id[i] == 0 {
			q += " AND request_id = ?"
			args = append(args, c.rid[i])
		}
		err := w.db.Conn.QueryRow(ctx, q, args...).Scan(&n)
		return n > 0, err
	}
	k := c.len()
	if ok, err := in(0); err != nil || !ok {
		return 0, err
	}
	if ok, err := in(k - 1); err != nil || ok {
		return k, err
	}
	lo, hi := 0, k-1 // row lo is there, row hi is not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := in(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// usageRows is what the lookups read: usage_events, and the old table of a re-key in progress.
func (db *DB) usageRows() string {
	old := "_prekey"
	if db.Cluster != "" {
		old = "_local_prekey"
	}
	return "merge(" + db.Name + ", '^usage_events(" + old + ")?$')"
}

// ship sends one journal's events to ClickHouse batch by batch, recording the position after each,
// until the budget of bytes is spent (budget -1: until the journal is drained).
func (w *UsageWriter) ship(ctx context.Context, j *journal, sh *shipper, budget *int64) error {
	for *budget != 0 {
		lines, n, err := j.readBatch(sh.buf, sh.lines[:0], w.cfg.BatchSize)
		if t := j.torn; t > 0 {
			j.torn = 0
			w.pending.Add(-t)
			spend(budget, t)
		}
		if err != nil {
			return fmt.Errorf("usage spool: %w", err)
		}
		if n == 0 {
			return nil
		}
		sh.lines = lines
		sh.cols.reset()
		for _, l := range lines {
			sh.pace.step(1)
			e, err := parseEvent(unsafe.String(unsafe.SliceData(l), len(l)))
			if err != nil {
				w.corrupt.Add(1)
				continue
			}
			sh.cols.add(e)
		}
		qid := batchQueryID(j, &sh.cols)
		if j.unsure && sh.cols.len() > 0 {
			ictx, cancel := context.WithTimeout(ctx, insertTimeout)
			there, err := w.alreadyShipped(ictx, qid, &sh.cols)
			cancel()
			if err != nil {
				w.setDown(err)
				return err
			}
			if there < sh.cols.len() {
				j.unsure = false // the rest, and everything after it, was never inserted
			}
			if there > 0 {
				sh.cols.drop(there)
				w.replayed.Add(int64(there))
				if w.log != nil {
					w.log.Info("usage spool: events already in ClickHouse (inserted by a process that stopped before recording it) not inserted again",
						"dir", j.dir, "events", there)
				}
			}
		}
		if k := sh.cols.len(); k > 0 {
			sh.order.orderForInsert(&sh.cols) // after the lookups, which read the journal's order
			ictx, cancel := context.WithTimeout(ctx, insertTimeout)
			err := w.insert(ictx, qid, &sh.cols, &sh.pace)
			cancel()
			if err != nil {
				// Whether the server committed the batch is unknown (a connection cut after the data was
				// sent, a server killed after its commit): the next attempt asks ClickHouse first.
				j.unsure = true
				w.setDown(err)
				return err
			}
			w.written.Add(int64(k))
		}
		if err := j.advance(n); err != nil {
			return fmt.Errorf("usage spool: %w", err)
		}
		w.pending.Add(-int64(n))
		spend(budget, int64(n))
		w.setUp()
	}
	return nil
}

// batchQueryID names the inserts of the batch that begins at the journal's position: every attempt of
// one batch has the same query id (its first event's id, or for lines without one the slot and
// position), so the server refuses an attempt while an earlier one is still running.
func batchQueryID(j *journal, c *usageColumns) string {
	if c.len() > 0 && c.id[0] != 0 {
		return fmt.Sprintf("usage-%016x", c.id[0])
	}
	return fmt.Sprintf("usage-%s-%d-%d", filepath.Base(j.dir), j.seq, j.off)
}

// spend takes n bytes off a ship's budget (never below 0; -1 stays: no budget).
func spend(budget *int64, n int64) {
	if *budget > 0 {
		*budget = max(*budget-n, 0)
	}
}

// setDown notes a failed insert, logging the change (one line per outage, not one per batch).
func (w *UsageWriter) setDown(err error) {
	msg := err.Error()
	w.lastErr.Store(&msg)
	if !w.down.Swap(true) && w.log != nil {
		w.log.Error("usage history unavailable: events are held in the spool", "error", msg, "pending_bytes", w.pending.Load())
	}
}

func (w *UsageWriter) setUp() {
	if w.down.Swap(false) && w.log != nil {
		w.log.Info("usage history available again: shipping the spool", "pending_bytes", w.pending.Load())
	}
}

// adopt takes over the slots of processes that died with events unshipped.
func (w *UsageWriter) adopt() {
	ents, err := os.ReadDir(w.base)
	if err != nil {
		return
	}
	w.adoptMu.Lock()
	defer w.adoptMu.Unlock()
	held := map[string]bool{w.own.dir: true}
	for _, j := range w.adopted {
		held[j.dir] = true
	}
	for _, e := range ents {
		dir := filepath.Join(w.base, e.Name())
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "slot-") || held[dir] {
			continue
		}
		j, ok, err := lockSlot(dir)
		if err != nil || !ok {
			continue
		}
		p, err := j.pending()
		if err != nil || p == 0 {
			j.removeFiles()
			j.close()
			continue
		}
		w.pending.Add(p)
		w.adopted = append(w.adopted, j)
		if w.log != nil {
			w.log.Info("usage spool: adopted the events of a process that stopped", "dir", dir, "pending_bytes", p)
		}
	}
}

// dropDrained releases adopted slots that have been shipped in full.
func (w *UsageWriter) dropDrained() {
	w.adoptMu.Lock()
	defer w.adoptMu.Unlock()
	kept := w.adopted[:0]
	for _, j := range w.adopted {
		if j.empty() {
			j.removeFiles()
			j.close()
			continue
		}
		kept = append(kept, j)
	}
	w.adopted = kept
}

// insertChunk is how many rows of a batch are appended to the insert's columns before they are sent
// as one block of it: the columns are emptied and refilled, not grown, so a batch of 50,000 events
// costs the shipper about 1 MB of column memory instead of the 30 MB that growing every column to the
// whole batch allocated (half of what a metered edge allocated, and the collections that come with it).
// The server gathers the blocks of one INSERT into one part before it writes anything (blocks are
// squashed up to min_insert_block_size_rows, 1,048,576, above BatchSize's 1,000,000): an insert cut off
// after some of its blocks stores none of them, as before.
const insertChunk = 4096

// insert sends a batch in one INSERT, column by column (Append per row converts its 15 values through
// reflection, and under load the shipper runs beside the edge's requests), insertChunk rows per block,
// resting between blocks as the pacer says.
func (w *UsageWriter) insert(ctx context.Context, qid string, c *usageColumns, pace *pacer) error {
	b, err := w.db.Conn.PrepareBatch(clickhouse.Context(w.db.writeContext(ctx), clickhouse.WithQueryID(qid)), "INSERT INTO "+w.db.table("usage_events")+
		" (request_id, key_id, user_id, key_prefix, method, route, status, tokens, overage, latency_us, ts, ts_ms, plan, error_code, event_id)")
	if err != nil {
		return err
	}
	for lo := 0; lo < c.len(); lo += insertChunk {
		hi := min(lo+insertChunk, c.len())
		for i, col := range []any{c.rid[lo:hi], c.kid[lo:hi], c.uid[lo:hi], c.kp[lo:hi], c.meth[lo:hi], c.route[lo:hi], c.status[lo:hi],
			c.tokens[lo:hi], c.overage[lo:hi], c.lat[lo:hi], c.ts[lo:hi], c.ms[lo:hi], c.plan[lo:hi], c.code[lo:hi], c.id[lo:hi]} {
			if err := b.Column(i).Append(col); err != nil {
				_ = b.Abort()
				return err
			}
		}
		if hi < c.len() {
			if err := b.Flush(); err != nil {
				_ = b.Abort()
				return err
			}
			pace.step(hi - lo)
		}
	}
	return b.Send()
}
