package redis

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// srcField is the bars hash field naming the source of an interval's candles.
func srcField(interval string) string { return "src:" + interval }

// dataSources are the sources a screening result is counted under (shariah.DataSourceOf).
var dataSources = []string{shariah.DataFiled, shariah.DataIllustrative, shariah.DataNoFundamentals}

// RefStore implements market.RefStore.
type RefStore struct {
	c rueidis.Client
	// cacheTTL, when set, serves hot reads (records, quotes, candles) from rueidis's client-side cache
	// for at most that long; Redis invalidates an entry when its key changes, but the invalidation
	// arrives asynchronously, so writers (the loader, ingesters) use an uncached store to read their
	// own writes.
	cacheTTL time.Duration
	// quotes, when set, makes PutQuote store each quote as the body GET /api/quote serves (served.go).
	quotes *market.QuoteBodies
	// memo, in a cached store, remembers the quotes served from the cache's values (parsed_memo.go).
	memo *parsedMemo[shariah.StoredQuote]
	// version, in a cached store, is the last version read and when (Version).
	version *atomic.Pointer[versionRead]
}

// versionRead is a version as read at a time.
type versionRead struct {
	v  int64
	at time.Time // with its monotonic reading
}

// versionRecheck is how long a cached store's version read answers Version before the next read: every
// request of the edge reads the version (the catalog's and the screenings' freshness), and under load a
// thousand reads a second stand for tens of thousands of lookups. A change reaches the edge when its
// invalidation arrives, and at most this much later.
const versionRecheck = time.Millisecond

var _ market.RefStore = (*RefStore)(nil)

// NewRefStore returns an uncached reference store over the client (for writers).
func NewRefStore(c rueidis.Client) *RefStore { return &RefStore{c: c} }

// Cached returns a copy of the store that serves reads from the client-side cache (for the edge).
func (s *RefStore) Cached(ttl time.Duration) *RefStore {
	c := *s
	c.cacheTTL = ttl
	c.memo, c.version = nil, nil
	if ttl > 0 {
		c.memo, c.version = newParsedMemo[shariah.StoredQuote](), new(atomic.Pointer[versionRead])
	}
	return &c
}

// WithQuoteBodies returns a copy of the store whose PutQuote stores each quote as the body GET
// /api/quote serves, encoded by bodies (the writers get the service's market_data disclaimer). Without
// it the quote is stored alone, and the edge encodes its body on the first read.
func (s *RefStore) WithQuoteBodies(bodies market.QuoteBodies) *RefStore {
	c := *s
	c.quotes = &bodies
	return &c
}

// chunk is the number of commands sent in one pipeline by bulk operations.
const chunk = 2000

func (s *RefStore) doAll(ctx context.Context, cmds rueidis.Commands) error {
	for len(cmds) > 0 {
		n := min(chunk, len(cmds))
		for _, r := range s.c.DoMulti(ctx, cmds[:n]...) {
			if err := r.Error(); err != nil {
				return err
			}
		}
		cmds = cmds[n:]
	}
	return nil
}

func (s *RefStore) getJSONMany(ctx context.Context, keys []string, each func(i int, b []byte) error) error {
	for start := 0; start < len(keys); start += chunk {
		end := min(start+chunk, len(keys))
		cmds := make(rueidis.Commands, 0, end-start)
		for _, k := range keys[start:end] {
			cmds = append(cmds, s.c.B().Get().Key(k).Build())
		}
		for i, r := range s.c.DoMulti(ctx, cmds...) {
			b, err := r.AsBytes()
			if rueidis.IsRedisNil(err) {
				continue
			}
			if err != nil {
				return err
			}
			if err := each(start+i, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *RefStore) setJSON(key string, v any) (rueidis.Completed, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return rueidis.Completed{}, err
	}
	return s.c.B().Set().Key(key).Value(rueidis.BinaryString(b)).Build(), nil
}

func (s *RefStore) getJSON(ctx context.Context, key string, v any, cached bool) (bool, error) {
	ttl := s.cacheTTL
	if !cached {
		ttl = 0
	}
	b, ok, err := getValue(ctx, s.c, key, ttl)
	if !ok || err != nil {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}

// BumpVersion increments the reference-data version.
func (s *RefStore) BumpVersion(ctx context.Context) (int64, error) {
	return s.c.Do(ctx, s.c.B().Incr().Key(refVersionKey()).Build()).AsInt64()
}

// Version reads the reference-data version. A cached store reads it through the client-side cache, and
// a read answers for versionRecheck: cheap per request.
func (s *RefStore) Version(ctx context.Context) (int64, error) {
	if s.cacheTTL <= 0 {
		return versionOf(s.c.Do(ctx, s.c.B().Get().Key(refVersionKey()).Build()))
	}
	if r := s.version.Load(); r != nil && time.Since(r.at) < versionRecheck {
		return r.v, nil
	}
	at := time.Now()
	v, err := versionOf(s.c.DoCache(ctx, s.c.B().Get().Key(refVersionKey()).Cache(), min(s.cacheTTL, time.Second)))
	if err == nil {
		s.version.Store(&versionRead{v: v, at: at})
	}
	return v, err
}

// versionOf reads the version key's value (0 while there is none).
func versionOf(res rueidis.RedisResult) (int64, error) {
	v, err := res.AsInt64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	return v, err
}
