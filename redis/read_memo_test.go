package redis

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/internal/testcheck"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// memoTTL is longer than any wait of these tests: a value the memo should have dropped and did not
// would still be served when the wait ends, and the test fails.
const memoTTL = time.Minute

// waitFor polls cond until it holds; it fails the test after 10 s (invalidations arrive within
// milliseconds; memoTTL is far longer).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testcheck.WaitFor(t, 10*time.Second, what, cond)
}

// memoFixture is a Redis of the test's own, a reader with its memo and a writer (both from Open).
type memoFixture struct {
	ctx    context.Context
	reader rueidis.Client
	memo   *readMemo
	writer rueidis.Client
}

func newMemoFixture(t *testing.T) *memoFixture {
	t.Helper()
	url := testsvc.MustRedis(t).RedisURL()
	f := &memoFixture{ctx: context.Background()}
	for _, c := range []*rueidis.Client{&f.reader, &f.writer} {
		cl, err := Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		*c = cl
	}
	if f.memo = memoOf(f.reader); f.memo == nil {
		t.Fatal("a client Open returned has no memo")
	}
	return f
}

// do sends a command from the writer until it succeeds (CLIENT KILL closes the writer's connections
// too, and rueidis reconnects).
func (f *memoFixture) do(t *testing.T, cmd func() rueidis.Completed) {
	t.Helper()
	var err error
	waitFor(t, "a command from the writer succeeds", func() bool {
		err = f.writer.Do(f.ctx, cmd()).Error()
		return err == nil
	})
}

func (f *memoFixture) set(t *testing.T, key, v string) {
	t.Helper()
	f.do(t, func() rueidis.Completed { return f.writer.B().Set().Key(key).Value(v).Build() })
}

// read reads key through the reader's memo.
func (f *memoFixture) read(key string) ([]byte, bool, error) {
	return getValue(f.ctx, f.reader, key, memoTTL)
}

// readUntil reads key until its value is want.
func (f *memoFixture) readUntil(t *testing.T, key, want string) {
	t.Helper()
	waitFor(t, key+" reads "+want, func() bool {
		b, ok, err := f.read(key)
		return err == nil && ok && string(b) == want
	})
}

// remembered reports whether a read of key is answered by the memo (nothing goes to rueidis) with want.
func (f *memoFixture) remembered(key, want string) bool {
	before := f.memo.misses.Load()
	b, _, _ := f.read(key)
	return string(b) == want && f.memo.misses.Load() == before
}

// Every change another client makes reaches the reader, while readers on several goroutines keep
// refilling the memo (the race between a fill and an invalidation: a value remembered after its
// invalidation would be served for memoTTL); between changes, reads are answered by the memo.
func TestReadMemoSeesEveryChange(t *testing.T) {
	t.Parallel()
	f := newMemoFixture(t)
	const key = "test:memo:value"
	f.set(t, key, "v0")
	f.readUntil(t, key, "v0")
	for i := range 10 {
		if !f.remembered(key, "v0") {
			t.Fatalf("read %d of an unchanged key not answered by the memo", i)
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_, _, _ = f.read(key)
					time.Sleep(50 * time.Microsecond) // (pacing: the test goroutine gets its turns)
				}
			}
		}()
	}
	for i := 1; i <= 300; i++ {
		v := "v" + strconv.Itoa(i)
		f.set(t, key, v)
		f.readUntil(t, key, v)
	}
	close(stop)
	wg.Wait()
	f.readUntil(t, key, "v300")
	if !f.remembered(key, "v300") {
		t.Fatal("the memo no longer answers once the changes stop")
	}
	// A key deleted is absent for the reader too.
	f.do(t, func() rueidis.Completed { return f.writer.B().Del().Key(key).Build() })
	waitFor(t, "a deleted key reads absent", func() bool {
		_, ok, err := f.read(key)
		return err == nil && !ok
	})
}

// The race the generation settles, made to happen: the key changes (and its invalidation is handled)
// after the reader's DoCache returned the old value and before the memo remembers it. Remembered, the
// old value would be served for memoTTL.
func TestReadMemoDoesNotRememberAValueInvalidatedWhileItWasRead(t *testing.T) {
	t.Parallel()
	f := newMemoFixture(t)
	const key = "test:memo:race"
	f.set(t, key, "old")
	changed := false
	f.memo.afterRead = func() { // runs on the test's goroutine, inside the read below
		if changed {
			return
		}
		changed = true
		gen := f.memo.generation()
		f.set(t, key, "new")
		waitFor(t, "the change's invalidation reaches the reader", func() bool { return f.memo.generation() != gen })
	}
	if b, _, _ := f.read(key); string(b) != "old" {
		t.Fatalf("first read %q, want old (read before the change)", b)
	}
	if !changed {
		t.Fatal("the read did not go through the cache")
	}
	f.readUntil(t, key, "new")
}

// A connection Redis closes loses its tracking, so a change made then is never reported: the memo
// forgets everything when rueidis sees the connection close (as rueidis drops that connection's cache).
func TestReadMemoForgetsWhatALostConnectionRead(t *testing.T) {
	t.Parallel()
	f := newMemoFixture(t)
	const key = "test:memo:lost"
	for i := range 20 {
		old, v := "a"+strconv.Itoa(i), "b"+strconv.Itoa(i)
		f.set(t, key, old)
		f.readUntil(t, key, old)
		if !f.remembered(key, old) {
			t.Fatalf("round %d: %q not remembered", i, old)
		}
		// Every client connection closed (the reader's with them), then the key changed: no
		// invalidation can reach the reader.
		f.do(t, func() rueidis.Completed { return f.writer.B().ClientKill().TypeNormal().Build() })
		f.set(t, key, v)
		f.readUntil(t, key, v)
	}
}

// A value read while an invalidation arrived is not remembered (it may be the one invalidated); the
// bound on bytes holds.
func TestReadMemoRefusesAFillAcrossAnInvalidationAndStaysBounded(t *testing.T) {
	m := newReadMemo(1000)
	gen := m.generation()
	m.invalidate([]rueidis.RedisMessage{}) // any key: the generation moves
	m.put("k", []byte("old"), gen, memoTTL)
	if _, ok := m.get("k"); ok {
		t.Fatal("a value read across an invalidation was remembered")
	}
	m.put("k", []byte("new"), m.generation(), memoTTL)
	if b, ok := m.get("k"); !ok || string(b) != "new" {
		t.Fatalf("a value read with no invalidation since: %q %v", b, ok)
	}
	m.put("short", []byte("x"), m.generation(), -time.Nanosecond) // expired when put: no wait
	if _, ok := m.get("short"); ok {
		t.Fatal("an expired value answered")
	}
	for i := range 100 {
		m.put("k"+strconv.Itoa(i), bytes.Repeat([]byte{'x'}, 100), m.generation(), memoTTL)
		if m.bytes > 1000 {
			t.Fatalf("after %d puts the memo holds %d bytes, bound 1000", i+1, m.bytes)
		}
		if _, ok := m.get("k" + strconv.Itoa(i)); !ok {
			t.Fatalf("the value just put (%d) was dropped", i)
		}
	}
	m.put("huge", bytes.Repeat([]byte{'x'}, 600), m.generation(), memoTTL)
	if _, ok := m.get("huge"); ok {
		t.Fatal("a value over a quarter of the bound was remembered")
	}
	m.invalidate(nil)
	n := 0
	m.m.Range(func(any, any) bool { n++; return true })
	if n != 0 || m.bytes != 0 {
		t.Fatalf("invalidate(nil) left %d entries, %d bytes", n, m.bytes)
	}
}

// BenchmarkCachedRead reads a 22 KB value (a cached screening's size) of a key that does not change,
// through rueidis's client-side cache alone (DoCache, as before the memo) and through the memo.
func BenchmarkCachedRead(b *testing.B) {
	url := testsvc.MustRedis(b).RedisURL()
	c, err := Open(url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	const key = "shr:result:{MSFT}:default"
	if err := c.Do(ctx, c.B().Set().Key(key).Value(string(bytes.Repeat([]byte{'x'}, 22203))).Build()).Error(); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		c    rueidis.Client
	}{{"client-side-cache", boundedClient{Client: c.(boundedClient).Client}}, {"memo", c}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := getValue(ctx, bc.c, key, memoTTL); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, ok, err := getValue(ctx, bc.c, key, memoTTL); !ok || err != nil {
						b.Error(ok, err)
						return
					}
				}
			})
		})
	}
}
