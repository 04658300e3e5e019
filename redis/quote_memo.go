package redis

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unsafe"

	shariah "github.com/shariah-screen/shariah"
)

// quoteMemo remembers the quotes served from values of the client-side cache, by the address of the
// cached bytes. While rueidis holds a value, every read of it returns the same bytes (getValue does not
// copy them), so a read whose bytes are at the remembered address, of the remembered length, is the value
// already parsed: its body, which parsing copies out of the value ('{' and the members), is served again
// as it is, with no copy and no allocation. A changed quote is a new value at a new address, so it misses.
// The memo keeps the bytes it remembers reachable, so their address cannot be taken by another value
// while it does.
//
// It is direct-mapped: quoteMemoSlots slots, one symbol per slot at a time (a collision replaces), so it
// holds at most that many values and bodies beyond the cache's own (about 2.5 KB each). Bodies are read
// only: every reader of a remembered quote shares them.
type quoteMemo struct {
	seed  maphash.Seed
	slots [quoteMemoSlots]atomic.Pointer[quoteMemoEntry]
}

const quoteMemoSlots = 4096

type quoteMemoEntry struct {
	key     string
	variant string
	data    *byte // the cached value's bytes: kept reachable by the entry
	n       int
	q       shariah.StoredQuote
}

func newQuoteMemo() *quoteMemo { return &quoteMemo{seed: maphash.MakeSeed()} }

func (m *quoteMemo) slot(key string) *atomic.Pointer[quoteMemoEntry] {
	return &m.slots[maphash.String(m.seed, key)%quoteMemoSlots]
}

// get returns the quote parsed from the value b of key (of the variant), if it is the one remembered.
func (m *quoteMemo) get(key, variant string, b []byte) (shariah.StoredQuote, bool) {
	if m == nil || len(b) == 0 {
		return shariah.StoredQuote{}, false
	}
	e := m.slot(key).Load()
	if e == nil || e.data != unsafe.SliceData(b) || e.n != len(b) || e.key != key || e.variant != variant {
		return shariah.StoredQuote{}, false
	}
	return e.q, true
}

// put remembers the quote parsed from the value b of key.
func (m *quoteMemo) put(key, variant string, b []byte, q shariah.StoredQuote) {
	if m == nil || len(b) == 0 {
		return
	}
	// (a copy of key: the caller's does not escape, see getValue)
	m.slot(key).Store(&quoteMemoEntry{key: strings.Clone(key), variant: variant, data: unsafe.SliceData(b), n: len(b), q: q})
}
