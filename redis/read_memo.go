package redis

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// readMemo remembers the values of string keys read through rueidis's client-side cache (getValue with
// a ttl), so that a hot read (a cached screening, a quote, an asset record: every request of the edge
// makes one or two) is a map lookup instead of a DoCache call. DoCache builds a command, looks the key up
// in the connection's cache under its lock and copies the result: 0.3-0.4 µs a read in
// BenchmarkCachedRead and 1.5-2 µs in a loaded edge's profile, against 0.06-0.1 µs and 0.3 µs here (a
// sync.Map: readers take no lock and write nothing shared).
//
// It is never staler than rueidis's own cache:
//   - Redis tells the client of every change to a key it read with caching on (RESP3 tracking, which
//     rueidis always asks for: Open fails on a Redis without it), and rueidis hands each such
//     invalidation to invalidate after it has dropped the key from its own cache. invalidate drops the
//     key here too.
//   - A connection that closes (Redis restarted, a failover, a network fault) drops everything, as rueidis
//     does with that connection's cache: invalidate(nil).
//   - A value read from the cache is remembered only if no invalidation arrived while it was read (gen):
//     one that did may have been for this key, after rueidis had returned the value it was dropping.
//   - An entry is kept at most ttl, the lifetime the read asked rueidis for.
//
// The bytes are rueidis's (read only; getValue's callers do not write into them), kept reachable by the
// entry. Bounded by maxBytes of values: past it, arbitrary entries are dropped down to three quarters of it.
type readMemo struct {
	m sync.Map // key -> *memoValue; read without a lock, written under mu
	// mu orders the writes: a put against the invalidations (gen), the byte count and the bound
	mu       sync.Mutex
	bytes    int
	maxBytes int
	gen      atomic.Uint64 // incremented by every invalidation
	misses   atomic.Uint64 // reads that went to rueidis (tests; hits are not counted)
	// afterRead, when set (tests), runs between a read from the cache and its put.
	afterRead func()
}

type memoValue struct {
	b       []byte
	expires time.Time // with the monotonic reading of the time it was read
}

// readMemoBytes bounds a client's memo: the values it keeps reachable beyond rueidis's cache (which
// holds the same bytes while it keeps the key).
const readMemoBytes = 32 << 20

func newReadMemo(maxBytes int) *readMemo { return &readMemo{maxBytes: maxBytes} }

// get returns the value remembered for key, if any and not expired.
func (m *readMemo) get(key string) ([]byte, bool) {
	v, ok := m.m.Load(key)
	if !ok {
		return nil, false
	}
	e := v.(*memoValue)
	if !time.Now().Before(e.expires) {
		return nil, false
	}
	return e.b, true
}

// generation is the count of invalidations so far: read it before the read whose value put remembers.
func (m *readMemo) generation() uint64 { return m.gen.Load() }

// put remembers key's value b, read after generation returned gen, for ttl; not if an invalidation has
// arrived since.
func (m *readMemo) put(key string, b []byte, gen uint64, ttl time.Duration) {
	if len(b) > m.maxBytes/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen.Load() != gen {
		return
	}
	if old, ok := m.m.Load(key); ok {
		m.bytes -= len(old.(*memoValue).b)
	}
	if m.bytes+len(b) > m.maxBytes { // over the bound: drop arbitrary entries
		m.m.Range(func(k, v any) bool {
			if k.(string) != key {
				m.bytes -= len(v.(*memoValue).b)
				m.m.Delete(k)
			}
			return m.bytes+len(b) > m.maxBytes*3/4
		})
	}
	m.m.Store(key, &memoValue{b: b, expires: time.Now().Add(ttl)})
	m.bytes += len(b)
}

// invalidate is the client's OnInvalidations: the keys Redis reports changed, or nil for every key
// (a connection closed, FLUSHALL).
func (m *readMemo) invalidate(keys []rueidis.RedisMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen.Add(1)
	if keys == nil {
		m.m.Clear()
		m.bytes = 0
		return
	}
	for _, k := range keys {
		s, err := k.ToString()
		if err != nil {
			continue
		}
		if v, loaded := m.m.LoadAndDelete(s); loaded {
			m.bytes -= len(v.(*memoValue).b)
		}
	}
}

// memoOf is the memo of a client Open returned, else nil.
func memoOf(c rueidis.Client) *readMemo {
	if b, ok := c.(boundedClient); ok {
		return b.memo
	}
	return nil
}
