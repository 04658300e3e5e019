package redis

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unsafe"
)

// parsedMemo remembers what was parsed from values of the client-side cache (a quote's served body, a
// cached screening's header), by the address of the cached bytes. While rueidis (and the read memo,
// read_memo.go) holds a value, every read of it returns the same bytes (getValue does not copy them), so
// a read whose bytes are at the remembered address, of the remembered length, is the value already
// parsed: what parsing made of it is served again as it is, with no copy and no allocation. A changed
// value is new bytes at a new address, so it misses. The memo keeps the bytes it remembers reachable, so
// their address cannot be taken by another value while it does.
//
// It is direct-mapped: parsedMemoSlots slots, one key per slot at a time (a collision replaces), so it
// holds at most that many values and parses beyond the cache's own. What it holds is read only: every
// reader of a remembered value shares it. variant tells apart parses of one value for different readers
// (a quote body's disclaimers).
type parsedMemo[T any] struct {
	seed  maphash.Seed
	slots [parsedMemoSlots]atomic.Pointer[parsedEntry[T]]
}

const parsedMemoSlots = 4096

type parsedEntry[T any] struct {
	key     string
	variant string
	data    *byte // the cached value's bytes: kept reachable by the entry
	n       int
	v       T
}

func newParsedMemo[T any]() *parsedMemo[T] { return &parsedMemo[T]{seed: maphash.MakeSeed()} }

func (m *parsedMemo[T]) slot(key string) *atomic.Pointer[parsedEntry[T]] {
	return &m.slots[maphash.String(m.seed, key)%parsedMemoSlots]
}

// get returns what was parsed from the value b of key (for the variant), if it is the one remembered.
func (m *parsedMemo[T]) get(key, variant string, b []byte) (T, bool) {
	var zero T
	if m == nil || len(b) == 0 {
		return zero, false
	}
	e := m.slot(key).Load()
	if e == nil || e.data != unsafe.SliceData(b) || e.n != len(b) || e.key != key || e.variant != variant {
		return zero, false
	}
	return e.v, true
}

// put remembers v, parsed from the value b of key.
func (m *parsedMemo[T]) put(key, variant string, b []byte, v T) {
	if m == nil || len(b) == 0 {
		return
	}
	// (a copy of key: the caller's does not escape, see getValue)
	m.slot(key).Store(&parsedEntry[T]{key: strings.Clone(key), variant: variant, data: unsafe.SliceData(b), n: len(b), v: v})
}
