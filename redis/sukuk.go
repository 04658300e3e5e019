package redis

import (
	"context"
	"encoding/json"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/sukuk"
)

// SukukStore implements sukuk.Store: one hash of ISIN to record.
type SukukStore struct{ c rueidis.Client }

var _ sukuk.Store = (*SukukStore)(nil)

// NewSukukStore returns the store over the client.
func NewSukukStore(c rueidis.Client) *SukukStore { return &SukukStore{c: c} }

// PutSukuk stores records; real data replaces an illustrative record of the same ISIN, and an
// illustrative record never replaces real data.
func (s *SukukStore) PutSukuk(ctx context.Context, list []sukuk.Sukuk) error {
	if len(list) == 0 {
		return nil
	}
	var keep []sukuk.Sukuk
	for _, sk := range list {
		if sk.Illustrative {
			old, ok, err := s.Sukuk(ctx, sk.ISIN)
			if err != nil {
				return err
			}
			if ok && !old.Illustrative {
				continue
			}
		}
		keep = append(keep, sk)
	}
	if len(keep) == 0 {
		return nil
	}
	cmd := s.c.B().Hset().Key(sukukKey()).FieldValue()
	for _, sk := range keep {
		b, err := json.Marshal(sk)
		if err != nil {
			return err
		}
		cmd = cmd.FieldValue(sk.ISIN, rueidis.BinaryString(b))
	}
	return s.c.Do(ctx, cmd.Build()).Error()
}

// Sukuk reads one record.
func (s *SukukStore) Sukuk(ctx context.Context, isin string) (sukuk.Sukuk, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Hget().Key(sukukKey()).Field(isin).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return sukuk.Sukuk{}, false, nil
	}
	if err != nil {
		return sukuk.Sukuk{}, false, err
	}
	var sk sukuk.Sukuk
	return sk, true, json.Unmarshal(b, &sk)
}

// AllSukuk reads every record.
func (s *SukukStore) AllSukuk(ctx context.Context) ([]sukuk.Sukuk, error) {
	vals, err := s.c.Do(ctx, s.c.B().Hvals().Key(sukukKey()).Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	out := make([]sukuk.Sukuk, 0, len(vals))
	for _, v := range vals {
		var sk sukuk.Sukuk
		if err := json.Unmarshal([]byte(v), &sk); err != nil {
			return nil, err
		}
		out = append(out, sk)
	}
	return out, nil
}
