package redis

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/filings"
)

// IngestStore implements filings.Store and filings.HealthStore.
type IngestStore struct{ c rueidis.Client }

var (
	_ filings.Store       = (*IngestStore)(nil)
	_ filings.HealthStore = (*IngestStore)(nil)
)

// NewIngestStore returns the store over the client.
func NewIngestStore(c rueidis.Client) *IngestStore { return &IngestStore{c: c} }

func (s *IngestStore) putJSON(ctx context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, s.c.B().Set().Key(key).Value(rueidis.BinaryString(b)).Build()).Error()
}

func (s *IngestStore) getJSON(ctx context.Context, key string, v any) error {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(key).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// PutFilings replaces a symbol's filings list (newest first).
func (s *IngestStore) PutFilings(ctx context.Context, sym string, fs []filings.Filing) error {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].FilingDate > fs[j].FilingDate })
	return s.putJSON(ctx, filingsKey(sym), fs)
}

// Filings reads a symbol's filings, newest first.
func (s *IngestStore) Filings(ctx context.Context, sym string) ([]filings.Filing, error) {
	var out []filings.Filing
	return out, s.getJSON(ctx, filingsKey(sym), &out)
}

// PutFacts replaces a symbol's XBRL facts.
func (s *IngestStore) PutFacts(ctx context.Context, sym string, fs []filings.XBRLFact) error {
	return s.putJSON(ctx, factsKey(sym), fs)
}

// Facts reads a symbol's XBRL facts.
func (s *IngestStore) Facts(ctx context.Context, sym string) ([]filings.XBRLFact, error) {
	var out []filings.XBRLFact
	return out, s.getJSON(ctx, factsKey(sym), &out)
}

// PutHealth writes a source's health.
func (s *IngestStore) PutHealth(ctx context.Context, h filings.SourceHealth) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	for _, r := range s.c.DoMulti(ctx,
		s.c.B().Set().Key(healthKey(h.Name)).Value(rueidis.BinaryString(b)).Build(),
		s.c.B().Sadd().Key(healthSetKey()).Member(h.Name).Build()) {
		if err := r.Error(); err != nil {
			return err
		}
	}
	return nil
}

// Health reads every source's health, with the lag computed now.
func (s *IngestStore) Health(ctx context.Context) ([]filings.SourceHealth, error) {
	names, err := s.c.Do(ctx, s.c.B().Smembers().Key(healthSetKey()).Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []filings.SourceHealth
	for _, n := range names {
		var h filings.SourceHealth
		if err := s.getJSON(ctx, healthKey(n), &h); err != nil {
			return nil, err
		}
		if h.LastSuccessAt != nil {
			lag := int64(time.Since(*h.LastSuccessAt).Seconds())
			h.LagSeconds = &lag
		}
		out = append(out, h)
	}
	return out, nil
}

// TryLock takes a named lock with a random token (SET NX PX); release deletes it only while it still
// holds the token, so a lock that expired and was taken by another process is not freed by this one.
func (s *IngestStore) TryLock(ctx context.Context, name string, ttl time.Duration) (func(), bool, error) {
	token := uuid.NewString()
	ok, err := s.c.Do(ctx, s.c.B().Set().Key(ingestLockKey(name)).Value(token).Nx().Px(ttl).Build()).AsBool()
	if err != nil && !rueidis.IsRedisNil(err) {
		return nil, false, err
	}
	if !ok {
		return func() {}, false, nil
	}
	return func() {
		_ = releaseIndexScript.Exec(context.Background(), s.c, []string{ingestLockKey(name)}, []string{token}).Error()
	}, true, nil
}
