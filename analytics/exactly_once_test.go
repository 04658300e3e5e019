package analytics_test

import (
	"context"
	"fmt"

	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/internal/testcheck"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// Issue 26 (item 3): usage rows exactly once whatever ClickHouse does. These tests kill a real
// ClickHouse with SIGKILL and restart it on its data.

// waitFor polls cond until it holds (failing the test after a minute: a condition that never comes).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testcheck.WaitFor(t, time.Minute, what, cond)
}

// waitForOr is waitFor whose failure adds what explain says of the state (for a wait that failed once
// and was not reproduced).
func waitForOr(t *testing.T, what string, cond func() bool, explain func() string) {
	t.Helper()
	testcheck.WaitForOr(t, time.Minute, what, cond, explain)
}

// flushUntilShipped flushes w until a flush succeeds (ClickHouse back, the proxy disarmed), each
// attempt bounded to 15 s.
func flushUntilShipped(t *testing.T, ctx context.Context, w *analytics.UsageWriter, what string) {
	t.Helper()
	waitFor(t, what, func() bool {
		fctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return w.Flush(fctx) == nil
	})
}

// tryCount is count without failing: ClickHouse may be down.
func tryCount(db *analytics.DB, q string) (uint64, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var n uint64
	if err := db.Conn.QueryRow(ctx, q).Scan(&n); err != nil {
		return 0, false
	}
	return n, true
}

// ownClickHouse starts a ClickHouse for the test alone (it is killed) and opens a migrated database on
// it through addr (the server itself, or a proxy in front of it).
func ownClickHouse(t *testing.T) (*testsvc.Proc, *analytics.DB) {
	t.Helper()
	ch := testsvc.MustClickHouse(t)
	db, err := analytics.Open(ch.ClickHouseURL("shariah"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ch, db
}

// replyEater is a TCP proxy in front of a ClickHouse that, once armed, stops passing the server's
// replies on a connection once the client has sent it more than `after` bytes with no reply between
// (an insert's data block; a query is far smaller): the data reaches the server, which commits it, and
// its reply never reaches the client.
//
// With holdData, it holds back the client's data instead, past the same threshold, until the client
// gives up and closes the connection; then it delivers what it held and closes: the server commits a
// batch late, after the edge saw its insert fail.
type replyEater struct {
	to       string
	armed    atomic.Bool
	after    int64
	holdData bool
}

// throughReplyEater connects to ch's database through a new replyEater (closed with the test).
func throughReplyEater(t *testing.T, ch *testsvc.Proc, after int64, holdData bool) (*analytics.DB, *replyEater) {
	t.Helper()
	p := &replyEater{to: "127.0.0.1:" + strconv.Itoa(ch.Port), after: after, holdData: holdData}
	return openThrough(t, ch, proxyListener(t, p.serve)), p
}

// proxyListener listens on a loopback port (closed with the test) and serves each connection it
// accepts with serve, on a goroutine of its own.
func proxyListener(t *testing.T, serve func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln
}

// openThrough opens ch's database through a proxy listening on ln (closed with the test).
func openThrough(t *testing.T, ch *testsvc.Proc, ln net.Listener) *analytics.DB {
	t.Helper()
	u, _ := url.Parse(ch.ClickHouseURL("shariah"))
	u.Host = ln.Addr().String()
	db, err := analytics.Open(u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (p *replyEater) serve(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.to)
	if err != nil {
		return
	}
	defer s.Close()
	var sent atomic.Int64 // client bytes since the last reply passed on
	done := make(chan struct{}, 2)
	go func() { // client -> server
		buf := make([]byte, 64<<10)
		var held []byte
		for {
			n, err := c.Read(buf)
			if n > 0 {
				sent.Add(int64(n))
				if p.holdData && p.armed.Load() && sent.Load() > p.after {
					held = append(held, buf[:n]...)
				} else if _, werr := s.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		if len(held) > 0 { // the client gave up: the server gets the data late, then the end of the stream
			s.Write(held)
			s.(*net.TCPConn).CloseWrite()
			io.Copy(io.Discard, s)
		}
		done <- struct{}{}
	}()
	go func() { // server -> client, eaten once armed and past the threshold
		buf := make([]byte, 64<<10)
		for {
			n, err := s.Read(buf)
			if n > 0 && !(!p.holdData && p.armed.Load() && sent.Load() > p.after) {
				sent.Store(0)
				if _, werr := c.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}()
	<-done // either side closed: close both
}

// TestLostInsertReplyIsNotInsertedTwice: ClickHouse commits a batch and is killed (-9) before its reply
// reaches the edge, which reads EOF. The edge must decide by what is stored: after the restart it
// finds the batch there and does not send it again. On the code before issue 26 (an insert error left
// the shipped position "sure") the batch was sent again: 2n rows.
func TestLostInsertReplyIsNotInsertedTwice(t *testing.T) {
	t.Parallel()
	ch, direct := ownClickHouse(t)
	const n = 20000                                     // about 3 MB in the insert block: far past the handshake and the query
	db, proxy := throughReplyEater(t, ch, 1<<20, false) // the replies stop 1 MB into the data
	w, ctx := runningWriter(t, db, n)
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i := range n {
		w.Record(account.UsageEvent{RequestID: "same-client-id", KeyID: "k", UserID: "u1", Method: "GET",
			Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Time: base.Add(time.Duration(i) * time.Millisecond)})
	}
	proxy.armed.Store(true)
	flushed := make(chan error, 1)
	go func() { flushed <- w.Flush(ctx) }()
	q := "SELECT toUInt64(count()) FROM shariah.usage_events"
	views := "SELECT toUInt64(countMerge(requests)) FROM shariah.usage_hourly"
	waitFor(t, "the batch committed, in the table and in every view", func() bool {
		for _, q := range []string{q, views, "SELECT toUInt64(countMerge(requests)) FROM shariah.usage_key_daily",
			"SELECT toUInt64(countMerge(requests)) FROM shariah.usage_key_hourly", "SELECT toUInt64(countMerge(requests)) FROM shariah.usage_route_daily",
			"SELECT toUInt64(countMerge(requests)) FROM shariah.usage_route_hourly"} {
			if m, _ := tryCount(direct, q); m != n {
				return false
			}
		}
		return true
	})
	ch.Kill() // the reply is lost: the edge reads EOF
	if err := <-flushed; err == nil {
		t.Fatal("the flush succeeded though its reply was never delivered")
	}
	proxy.armed.Store(false)
	if err := ch.Start(); err != nil {
		t.Fatal(err)
	}
	flushUntilShipped(t, ctx, w, "the spool shipped after the restart")
	if got := count(t, direct, q); got != n {
		t.Fatalf("%d rows after the lost reply, want %d (each event once)", got, n)
	}
	if got := count(t, direct, "SELECT toUInt64(uniqExact(event_id)) FROM shariah.usage_events"); got != n {
		t.Fatalf("%d distinct event ids, want %d (one per request, though every request reused one X-Request-ID)", got, n)
	}
	if got := count(t, direct, views); got != n {
		t.Fatalf("the views count %d requests, want %d", got, n)
	}
	if st := w.Stats(); st.Replayed != n {
		t.Fatalf("stats %+v: want the %d events found in ClickHouse", st, n)
	}
}

// TestReusedRequestIDsAreNotDroppedOnReplay: a client that reuses its X-Request-ID gets one row per
// request, also when an edge restarts with events in its spool whose (user, second, request id) are in
// ClickHouse already. Before issue 26 the replay looked rows up by request id and dropped them: 100 rows
// for 200 requests.
func TestReusedRequestIDsAreNotDroppedOnReplay(t *testing.T) {
	t.Parallel()
	db := setup(t)
	dir := t.TempDir()
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	ev := func() account.UsageEvent {
		return account.UsageEvent{RequestID: "reused", KeyID: "k", UserID: "u1", Method: "GET", Route: "/api/quote/{symbol}",
			Status: 200, Tokens: 2, Time: at}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w1, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: dir, BatchSize: 1000, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		w1.Record(ev())
	}
	if err := w1.ShipBudget(ctx, -1); err != nil {
		t.Fatal(err)
	}
	for range 100 { // recorded, and the edge restarts before shipping them
		w1.Record(ev())
	}
	w1.Close()
	w2 := newWriter(t, db, dir, 0, 1000, time.Hour)
	go w2.Run(ctx)
	if err := w2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	days, err := analytics.UsageReader{DB: db}.DailyUsage(ctx, "u1", at)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Requests != 200 || days[0].Tokens != 400 {
		t.Fatalf("daily usage %+v, want 200 requests and 400 tokens", days)
	}
}

// TestUsageRowsExactlyOnceWhileClickHouseIsKilled: a stream of events is shipped every 20 ms while
// ClickHouse is killed (-9) six times and restarted: three times while an insert of the writer is
// running (seen in system.processes: the batch is lost with the server and must be sent again), three
// times once a batch is committed and its insert is over, with its reply held back by a proxy (the edge
// reads EOF: the batch must not be sent again). Every event is in usage_events once. The views never
// count an event twice; they can miss a batch: on 18.16 an INSERT commits the table's part and then each
// view's part, one after the other, and a server killed between those commits, or a view's table that
// refuses its part (too many parts, under load), leaves the batch in usage_events and in only the views
// written before (docs/usage-exactly-once.md); the test logs it.
func TestUsageRowsExactlyOnceWhileClickHouseIsKilled(t *testing.T) {
	t.Parallel()
	ch, watch := ownClickHouse(t)
	db, proxy := throughReplyEater(t, ch, 4096, false) // past the INSERT and its header: the data
	w := newWriter(t, db, t.TempDir(), 0, 50000, 20*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	var recorded atomic.Int64
	var paused atomic.Bool // while set, no event is recorded: the writer ships what it holds and goes quiet
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the edge's requests, about 20,000 a second, reusing 50 client request ids
		defer wg.Done()
		base := time.Now().UTC()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if paused.Load() {
				time.Sleep(time.Millisecond)
				continue
			}
			for k := range 200 {
				w.Record(account.UsageEvent{RequestID: "r-" + strconv.Itoa((i*200+k)%50), KeyID: "k", UserID: "u" + strconv.Itoa(k%7),
					Method: "GET", Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Time: base.Add(time.Duration(i) * time.Millisecond)})
			}
			recorded.Add(200)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	views := []string{"usage_hourly", "usage_key_daily", "usage_key_hourly", "usage_route_daily", "usage_route_hourly"}
	// counts reads usage_events' rows and each view's requests
	counts := func() ([]uint64, bool) {
		out := make([]uint64, 0, 1+len(views))
		n, ok := tryCount(watch, "SELECT toUInt64(count()) FROM shariah.usage_events")
		if !ok {
			return nil, false
		}
		out = append(out, n)
		for _, v := range views {
			m, ok := tryCount(watch, "SELECT toUInt64(countMerge(requests)) FROM shariah."+v)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	insertRunning := "SELECT toUInt64(count()) FROM system.processes WHERE query LIKE 'INSERT INTO shariah.usage_events%'"
	// committedPast: a batch is in usage_events since before and its insert is over (no insert running,
	// the counts steady): whatever the insert was going to commit, table and views, is committed. Not
	// "every view grew by as much as the table": an insert that fails in one view after the table's part
	// (18.16 commits them one after another; under load a view's table can refuse with too many parts)
	// leaves that view short for good, and such a wait never ended (failed twice in ten fresh-clone runs).
	committedPast := func(before []uint64) bool {
		a, ok := counts()
		if !ok || a[0] <= before[0] {
			return false
		}
		if n, ok := tryCount(watch, insertRunning); !ok || n > 0 {
			return false
		}
		b, ok := counts()
		return ok && slices.Equal(a, b)
	}
	for kill := range 6 {
		if kill%2 == 0 {
			waitFor(t, fmt.Sprintf("kill %d: an insert running", kill), func() bool {
				n, ok := tryCount(watch, insertRunning)
				return ok && n > 0
			})
		} else {
			// No insert half done: the stream is paused until the writer has shipped what it held (with
			// the stream running, a loaded machine's inserts, one every 20 ms, can follow one another
			// without a gap, and a wait for a gap never ended: one fresh-clone run of ten).
			var before []uint64
			paused.Store(true)
			waitForOr(t, fmt.Sprintf("kill %d: ClickHouse answering, no insert half done", kill), func() bool {
				a, ok := counts()
				if !ok {
					return false
				}
				b, ok := counts()
				if !ok || !slices.Equal(a, b) {
					return false
				}
				n, ok := tryCount(watch, insertRunning)
				before = b
				return ok && n == 0
			}, func() string { return fmt.Sprintf("counts %v; writer %+v", before, w.Stats()) })
			proxy.armed.Store(true)
			paused.Store(false)
			waitForOr(t, fmt.Sprintf("kill %d: a batch committed, its reply held", kill), func() bool { return committedPast(before) }, func() string {
				now, ok := counts()
				var running []string
				if rows, err := watch.Conn.Query(context.Background(), "SELECT query_id, toString(elapsed), substring(query, 1, 60) FROM system.processes"); err == nil {
					for rows.Next() {
						var id, el, q string
						if rows.Scan(&id, &el, &q) == nil {
							running = append(running, id+" "+el+"s "+q)
						}
					}
					rows.Close()
				}
				return fmt.Sprintf("counts before %v, now %v (read %v); writer %+v; running %q", before, now, ok, w.Stats(), running)
			})
		}
		ch.Kill()
		proxy.armed.Store(false)
		if err := ch.Start(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	flushUntilShipped(t, ctx, w, "the spool shipped")
	n := uint64(recorded.Load())
	rows := count(t, watch, "SELECT toUInt64(count()) FROM shariah.usage_events")
	ids := count(t, watch, "SELECT toUInt64(uniqExact(event_id)) FROM shariah.usage_events")
	if rows != n || ids != n {
		t.Fatalf("%d rows, %d distinct events for %d recorded: want each once", rows, ids, n)
	}
	if tokens := count(t, watch, "SELECT toUInt64(sum(tokens)) FROM shariah.usage_events"); tokens != n {
		t.Fatalf("%d tokens in the rows, want %d", tokens, n)
	}
	for _, v := range views {
		got := count(t, watch, "SELECT toUInt64(countMerge(requests)) FROM shariah."+v)
		if got > n {
			t.Errorf("%s counts %d requests for %d events: an event counted twice", v, got, n)
		} else if got < n {
			t.Logf("%s misses %d events: a server killed between its commits of one insert", v, n-got)
		}
	}
	st := w.Stats()
	if st.Replayed == 0 {
		t.Fatalf("stats %+v: no batch was found committed after a lost reply (the test did not test that)", st)
	}
	t.Logf("%d events; stats %+v", n, st)
}

// TestLateCommitAfterAGivenUpInsertIsNotDoubled: the edge gives up on an insert (its 10 s bound) whose
// data the server has not read yet (a proxy holds it, as a hung server's socket would); the server then
// reads it and commits the batch late. The edge's next attempt must not insert the batch again: it sees
// the first attempt still running (the batch's query id) and waits until what is stored can be read.
func TestLateCommitAfterAGivenUpInsertIsNotDoubled(t *testing.T) {
	t.Parallel()
	ch, direct := ownClickHouse(t)
	db, proxy := throughReplyEater(t, ch, 1<<20, true)
	const n = 20000
	w, ctx := runningWriter(t, db, n)
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i := range n {
		w.Record(account.UsageEvent{RequestID: "r", KeyID: "k", UserID: "u1", Method: "GET",
			Route: "/api/quote/{symbol}", Status: 200, Tokens: 1, Time: base.Add(time.Duration(i) * time.Millisecond)})
	}
	proxy.armed.Store(true)
	if err := w.Flush(ctx); err == nil {
		t.Fatal("the insert succeeded though its data was held")
	}
	proxy.armed.Store(false)
	flushUntilShipped(t, ctx, w, "the spool shipped")
	if got := count(t, direct, "SELECT toUInt64(count()) FROM shariah.usage_events"); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
	if got := count(t, direct, "SELECT toUInt64(countMerge(requests)) FROM shariah.usage_hourly"); got != n {
		t.Fatalf("the views count %d, want %d", got, n)
	}
}

// connCutter is a TCP proxy in front of a ClickHouse that, once armed, closes a connection (both sides)
// as soon as the client has sent more than `after` bytes on it: an insert cut off between its blocks.
type connCutter struct {
	to    string
	armed atomic.Bool
	after int64
	cuts  atomic.Int64
}

func throughConnCutter(t *testing.T, ch *testsvc.Proc, after int64) (*analytics.DB, *connCutter) {
	t.Helper()
	p := &connCutter{to: "127.0.0.1:" + strconv.Itoa(ch.Port), after: after}
	return openThrough(t, ch, proxyListener(t, p.serve)), p
}

func (p *connCutter) serve(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.to)
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan struct{}, 2)
	go func() { // client -> server, cut once armed and past the threshold
		buf := make([]byte, 16<<10)
		var sent int64
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if p.armed.Load() && sent+int64(n) > p.after {
					p.cuts.Add(1)
					break
				}
				sent += int64(n)
				if _, werr := s.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}()
	go func() { io.Copy(c, s); done <- struct{}{} }()
	<-done // either side closed: close both
}

// TestInsertCutBetweenItsBlocksIsShippedOnce: the spool sends a batch as blocks of insertChunk rows in
// one INSERT (its columns refilled, not grown). A connection cut after some of the blocks reached the
// server must leave the batch whole after the retry: no event lost and none twice (the server stores
// nothing of an INSERT that never ended, and whatever it had stored would be a prefix the lookup finds).
func TestInsertCutBetweenItsBlocksIsShippedOnce(t *testing.T) {
	t.Parallel()
	ch, direct := ownClickHouse(t)
	const n = 20000                              // five blocks of 4,096 rows: about 3 MB
	db, proxy := throughConnCutter(t, ch, 1<<20) // cut 1 MB into the data: the first blocks are through
	w, ctx := runningWriter(t, db, n)
	for i := range n {
		w.Record(event(i))
	}
	proxy.armed.Store(true)
	if err := w.Flush(ctx); err == nil {
		t.Fatal("the flush succeeded though its connection was cut")
	}
	if proxy.cuts.Load() == 0 {
		t.Fatal("the proxy cut nothing: the batch never passed 1 MB")
	}
	q := "SELECT toUInt64(count()) FROM shariah.usage_events"
	stored := count(t, direct, q)
	t.Logf("rows stored by the cut insert: %d of %d", stored, n)
	if stored >= n {
		t.Fatalf("%d rows stored by an insert cut off partway, want fewer than %d", stored, n)
	}
	proxy.armed.Store(false)
	flushUntilShipped(t, ctx, w, "the spool shipped after the cut")
	if got := count(t, direct, q); got != n {
		t.Fatalf("%d rows after the retry, want %d (each event once)", got, n)
	}
	if got := count(t, direct, "SELECT toUInt64(uniqExact(event_id)) FROM shariah.usage_events"); got != n {
		t.Fatalf("%d distinct event ids, want %d", got, n)
	}
	if got := count(t, direct, "SELECT toUInt64(countMerge(requests)) FROM shariah.usage_hourly"); got != n {
		t.Fatalf("the views count %d requests, want %d", got, n)
	}
	// The five blocks were written as one part, as one block was (level 0: not merged from several).
	parts := "SELECT toUInt64(count()) FROM system.parts WHERE database = 'shariah' AND table = 'usage_events' AND active"
	if got := count(t, direct, parts); got != 1 {
		t.Fatalf("%d parts hold the batch, want 1", got)
	}
	if got := count(t, direct, parts+" AND level = 0"); got != 1 {
		t.Fatal("the batch's part was merged from several: its blocks were written one part each")
	}
}
