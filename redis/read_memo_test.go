package redis

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/internal/testsvc"
)

// memoTTL is longer than any wait of these tests: a value the memo should have dropped and did not
// would still be served when the wait ends, and the test fails.
const memoTTL = time.Minute

// readUntil reads key through the memo until its value is want; it fails the test after 5 s.
func readUntil(t *testing.T, c rueidis.Client, key, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, ok, err := getValue(context.Background(), c, key, memoTTL)
		if err == nil && ok && string(b) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still reads %q (ok %v, err %v) 5 s after it was set to %q", key, b, ok, err, want)
		}
		time.Sleep(time.Millisecond)
	}
}

func openMemoed(t *testing.T, url string) (rueidis.Client, *readMemo) {
	t.Helper()
	c, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	m := memoOf(c)
	if m == nil {
		t.Fatal("a client Open returned has no memo")
	}
	return c, m
}

// Every change another client makes reaches the reader, while readers on several goroutines keep
// refilling the memo (the race between a fill and an invalidation: a value remembered after its
// invalidation would be served for memoTTL); between changes, reads are answered by the memo.
func TestReadMemoSeesEveryChange(t *testing.T) {
	t.Parallel()
	url := testsvc.MustRedis(t).RedisURL()
	reader, memo := openMemoed(t, url)
	writer, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	ctx := context.Background()
	const key = "test:memo:value"
	set := func(v string) {
		t.Helper()
		if err := writer.Do(ctx, writer.B().Set().Key(key).Value(v).Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	set("v0")
	readUntil(t, reader, key, "v0")
	before := memo.misses.Load()
	for range 10 {
		if b, _, _ := getValue(ctx, reader, key, memoTTL); string(b) != "v0" {
			t.Fatalf("read %q, want v0", b)
		}
	}
	if got := memo.misses.Load() - before; got != 0 {
		t.Fatalf("%d of 10 reads of an unchanged key went to rueidis, not the memo", got)
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
					_, _, _ = getValue(ctx, reader, key, memoTTL)
					time.Sleep(50 * time.Microsecond)
				}
			}
		}()
	}
	for i := 1; i <= 300; i++ {
		v := "v" + strconv.Itoa(i)
		set(v)
		readUntil(t, reader, key, v)
	}
	close(stop)
	wg.Wait()
	readUntil(t, reader, key, "v300")
	before = memo.misses.Load()
	for range 5 {
		getValue(ctx, reader, key, memoTTL)
	}
	if memo.misses.Load() != before {
		t.Fatal("the memo no longer answers once the changes stop")
	}
	// A key deleted is absent for the reader too.
	if err := writer.Do(ctx, writer.B().Del().Key(key).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok, err := getValue(ctx, reader, key, memoTTL); err == nil && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a deleted key still reads 5 s after its deletion")
		}
		time.Sleep(time.Millisecond)
	}
}

// The race the generation settles, made to happen: the key changes (and its invalidation is handled)
// after the reader's DoCache returned the old value and before the memo remembers it. Remembered, the
// old value would be served for memoTTL.
func TestReadMemoDoesNotRememberAValueInvalidatedWhileItWasRead(t *testing.T) {
	t.Parallel()
	url := testsvc.MustRedis(t).RedisURL()
	reader, memo := openMemoed(t, url)
	writer, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	ctx := context.Background()
	const key = "test:memo:race"
	if err := writer.Do(ctx, writer.B().Set().Key(key).Value("old").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	changed := false
	memo.afterRead = func() {
		if changed {
			return
		}
		changed = true
		gen := memo.generation()
		if err := writer.Do(ctx, writer.B().Set().Key(key).Value("new").Build()).Error(); err != nil {
			t.Error(err)
			return
		}
		for deadline := time.Now().Add(5 * time.Second); memo.generation() == gen; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Error("no invalidation reached the reader 5 s after the key changed")
				return
			}
		}
	}
	if b, _, _ := getValue(ctx, reader, key, memoTTL); string(b) != "old" {
		t.Fatalf("first read %q, want old (read before the change)", b)
	}
	if !changed {
		t.Fatal("the read did not go through the cache")
	}
	readUntil(t, reader, key, "new")
}

// A connection Redis closes loses its tracking, so a change made then is never reported: the memo
// forgets everything when rueidis sees the connection close (as rueidis drops that connection's cache).
func TestReadMemoForgetsWhatALostConnectionRead(t *testing.T) {
	t.Parallel()
	url := testsvc.MustRedis(t).RedisURL()
	reader, memo := openMemoed(t, url)
	opt, err := rueidis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opt.DisableCache = true
	admin, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()
	const key = "test:memo:lost"
	// do sends a command from the admin, again after an error: CLIENT KILL closes the admin's other
	// connections too, and rueidis reconnects.
	do := func(cmd func() rueidis.Completed) {
		t.Helper()
		for try := 0; ; try++ {
			err := admin.Do(ctx, cmd()).Error()
			if err == nil {
				return
			}
			if try == 10 {
				t.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for i := range 20 {
		old, v := "a"+strconv.Itoa(i), "b"+strconv.Itoa(i)
		do(func() rueidis.Completed { return admin.B().Set().Key(key).Value(old).Build() })
		readUntil(t, reader, key, old)
		before := memo.misses.Load()
		if b, _, _ := getValue(ctx, reader, key, memoTTL); string(b) != old || memo.misses.Load() != before {
			t.Fatalf("round %d: %q not remembered", i, old)
		}
		// The reader's connections closed, then the key changed: no invalidation can reach the reader.
		do(func() rueidis.Completed { return admin.B().ClientKill().TypeNormal().SkipmeYes().Build() })
		do(func() rueidis.Completed { return admin.B().Set().Key(key).Value(v).Build() })
		readUntil(t, reader, key, v)
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
	m.put("short", []byte("x"), m.generation(), time.Nanosecond)
	time.Sleep(time.Millisecond)
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
