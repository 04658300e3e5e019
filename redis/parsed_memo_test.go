package redis

import (
	"bytes"
	"context"
	"strconv"
	"testing"
	"time"
	"unsafe"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// The memo answers only for the very bytes it parsed: equal bytes elsewhere, another length, another
// variant or another key miss; a collision replaces.
func TestParsedMemoMatchesTheCachedBytesOnly(t *testing.T) {
	m := newParsedMemo[shariah.StoredQuote]()
	v := []byte(`{"_served":"a","_etag":"\"e\"","_at":"2026-10-30","symbol":"X"}`)
	q := shariah.StoredQuote{Served: shariah.Served{Body: []byte(`{"symbol":"X"}`), ETag: `"e"`}, AsOf: "2026-10-30"}
	if _, ok := m.get("quote:X", "a", v); ok {
		t.Fatal("a hit in an empty memo")
	}
	m.put("quote:X", "a", v, q)
	got, ok := m.get("quote:X", "a", v)
	if !ok || unsafe.SliceData(got.Body) != unsafe.SliceData(q.Body) {
		t.Fatalf("the remembered value missed or was copied: %v", ok)
	}
	same := bytes.Clone(v)
	for name, miss := range map[string]func() bool{
		"equal bytes at another address": func() bool { _, ok := m.get("quote:X", "a", same); return ok },
		"a prefix of the bytes":          func() bool { _, ok := m.get("quote:X", "a", v[:len(v)-1]); return ok },
		"another variant":                func() bool { _, ok := m.get("quote:X", "b", v); return ok },
		"another key":                    func() bool { _, ok := m.get("quote:Y", "a", v); return ok },
		"nothing":                        func() bool { _, ok := m.get("quote:X", "a", nil); return ok },
	} {
		if miss() {
			t.Errorf("%s: a hit", name)
		}
	}
	// Another key in the same slot replaces the entry.
	other := ""
	for i := 0; other == ""; i++ {
		if k := "quote:S" + strconv.Itoa(i); m.slot(k) == m.slot("quote:X") {
			other = k
		}
	}
	w := bytes.Clone(v)
	m.put(other, "a", w, q)
	if _, ok := m.get("quote:X", "a", v); ok {
		t.Fatal("a replaced entry still answers")
	}
	if _, ok := m.get(other, "a", w); !ok {
		t.Fatal("the replacing entry misses")
	}
	var nilMemo *parsedMemo[shariah.StoredQuote] // an uncached store has none
	nilMemo.put("quote:X", "a", v, q)
	if _, ok := nilMemo.get("quote:X", "a", v); ok {
		t.Fatal("a nil memo answered")
	}
}

// Through the client-side cache: a second read of the same value serves the first read's body (no
// copy), and a new quote is served as soon as its invalidation arrives, never the remembered body.
func TestServedQuoteFromTheCacheIsRememberedUntilItChanges(t *testing.T) {
	t.Parallel()
	c := testClient(t)
	ctx := context.Background()
	bodies := market.NewQuoteBodies(testDisclaimers)
	writer := NewRefStore(c).WithQuoteBodies(bodies)
	edge := NewRefStore(c).Cached(time.Minute)
	q := testQuote("MEMO", 100_000_000)
	if err := writer.PutQuote(ctx, q); err != nil {
		t.Fatal(err)
	}
	want, _ := bodies.Serve(q)
	first, ok, err := edge.ServedQuote(ctx, "MEMO", bodies)
	if err != nil || !ok || !bytes.Equal(first.Body, want.Body) || first.ETag != want.ETag {
		t.Fatalf("first read %s %v %v", first.Body, ok, err)
	}
	second, ok, err := edge.ServedQuote(ctx, "MEMO", bodies)
	if err != nil || !ok || unsafe.SliceData(second.Body) != unsafe.SliceData(first.Body) {
		t.Fatalf("second read of the same cached value not served from the memo (%v %v)", ok, err)
	}
	newer := testQuote("MEMO", 101_000_000)
	if err := writer.PutQuote(ctx, newer); err != nil {
		t.Fatal(err)
	}
	wantNew, _ := bodies.Serve(newer)
	waitFor(t, "the new quote served", func() bool {
		got, ok, err := edge.ServedQuote(ctx, "MEMO", bodies)
		if err != nil || !ok {
			t.Fatalf("read after the change: %v %v", ok, err)
		}
		if bytes.Equal(got.Body, wantNew.Body) && got.ETag == wantNew.ETag {
			return true
		}
		if !bytes.Equal(got.Body, want.Body) || got.ETag != want.ETag {
			t.Fatalf("served neither the old nor the new quote: %s", got.Body)
		}
		return false
	})
}

// Through the memos: a cached screening read again is the same stored body (no copy), its parse is
// remembered for the cached value, and a result written since is served as soon as its invalidation
// arrives, never the remembered parse of the old one.
func TestServedResultFromTheCacheIsParsedOnceUntilItChanges(t *testing.T) {
	t.Parallel()
	c := testClient(t)
	ctx := context.Background()
	writer := NewResultStore(c)
	edge := NewResultStore(c).Cached(time.Minute)
	r := screening.Screen(tinyRatios(), specRuleset(t), "")
	if err := writer.PutResult(ctx, r, 1); err != nil {
		t.Fatal(err)
	}
	first, ok, err := edge.ServedResult(ctx, r.Symbol, r.Ruleset.Name)
	if err != nil || !ok || !first.ScreenedAt.Equal(r.ScreenedAt) {
		t.Fatalf("first read: %v %v %v", first.ScreenedAt, ok, err)
	}
	key := resultKey(r.Symbol, r.Ruleset.Name)
	b, _, _ := getValue(ctx, c, key, time.Minute)
	if _, ok := edge.memo.get(key, screening.ResultVariant, b); !ok {
		t.Fatal("the parse of the cached value is not remembered")
	}
	second, ok, err := edge.ServedResult(ctx, r.Symbol, r.Ruleset.Name)
	if err != nil || !ok || unsafe.SliceData(second.Body) != unsafe.SliceData(first.Body) || second.ETag != first.ETag {
		t.Fatalf("second read of the same cached value not served from the memo (%v %v)", ok, err)
	}
	newer := r
	newer.ScreenedAt = r.ScreenedAt.Add(time.Hour)
	if err := writer.PutResult(ctx, newer, 2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new result served", func() bool {
		got, ok, err := edge.ServedResult(ctx, r.Symbol, r.Ruleset.Name)
		if err != nil || !ok {
			t.Fatalf("read after the change: %v %v", ok, err)
		}
		if got.ScreenedAt.Equal(newer.ScreenedAt) && got.Version == 2 {
			if got.ETag == first.ETag || unsafe.SliceData(got.Body) == unsafe.SliceData(first.Body) {
				t.Fatal("the new result is served with the old one's body")
			}
			return true
		}
		if !got.ScreenedAt.Equal(r.ScreenedAt) || got.Version != 1 {
			t.Fatalf("served neither the old nor the new result: %v version %d", got.ScreenedAt, got.Version)
		}
		return false
	})
}
