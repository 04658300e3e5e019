package redis

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// KeyStore implements account.KeyStore.
type KeyStore struct {
	c        rueidis.Client
	onChange func(hash string) // told after a key record changed (see OnChange)
}

// OnChange registers f to be told, after this store changed a key's record (deactivated, plan), so
// that a lease meter of the same process applies it from the very next request instead of when Redis's
// invalidation arrives.
func (s *KeyStore) OnChange(f func(hash string)) { s.onChange = f }

func (s *KeyStore) changed(hash string, err error) error {
	if err == nil && s.onChange != nil {
		s.onChange(hash)
	}
	return err
}

var _ account.KeyStore = (*KeyStore)(nil)

// NewKeyStore returns a key store over the client.
func NewKeyStore(c rueidis.Client) *KeyStore { return &KeyStore{c: c} }

// CreateKey writes the prefix index first (NX: a colliding prefix is refused), then the user index, then
// the record: a failure part-way leaves at most an index entry pointing at nothing, never a live key
// that cannot be revoked.
func (s *KeyStore) CreateKey(ctx context.Context, k account.APIKey, carryFromHash string, now time.Time) error {
	c := s.c
	ok, err := c.Do(ctx, c.B().Set().Key(prefixKey(k.Prefix)).Value(k.Hash).Nx().Build()).AsBool()
	if err != nil && !rueidis.IsRedisNil(err) {
		return err
	}
	if !ok {
		return errors.New("key prefix collision; retry")
	}
	if err := c.Do(ctx, c.B().Zadd().Key(userKeysKey(k.UserID)).ScoreMember().
		ScoreMember(float64(k.CreatedAt.UnixMilli()), k.Hash).Build()).Error(); err != nil {
		return err
	}
	if carryFromHash != "" {
		p := account.PeriodOf(now)
		st, err := s.MeterState(ctx, carryFromHash, p)
		if err != nil {
			return err
		}
		// Tokens still leased to edges are carried as used: spent or not, they are reported to the old
		// key's meter (an over-count bounded by the leases, never an under-count).
		if used := st.Used + st.Leased; used > 0 || st.Overage > 0 {
			mk := meterKey(k.Hash, p.ID())
			for _, r := range c.DoMulti(ctx,
				c.B().Hset().Key(mk).FieldValue().FieldValue("used", strconv.FormatInt(used, 10)).
					FieldValue("overage", strconv.FormatInt(st.Overage, 10)).Build(),
				c.B().Expire().Key(mk).Seconds(meterTTL(p.End, now)).Build(),
			) {
				if err := r.Error(); err != nil {
					return err
				}
			}
		}
	}
	return c.Do(ctx, c.B().Hset().Key(keyRecordKey(k.Hash)).FieldValue().
		FieldValue("id", k.ID).
		FieldValue("prefix", k.Prefix).
		FieldValue("user_id", k.UserID).
		FieldValue("email", k.Email).
		FieldValue("plan", k.Plan).
		FieldValue("active", boolField(k.Active)).
		FieldValue("created_at", strconv.FormatInt(k.CreatedAt.UnixMilli(), 10)).Build()).Error()
}

// KeyByHash returns the record of a key, or ENOTFOUND.
func (s *KeyStore) KeyByHash(ctx context.Context, hash string) (account.APIKey, error) {
	m, err := s.c.Do(ctx, s.c.B().Hgetall().Key(keyRecordKey(hash)).Build()).AsStrMap()
	if err != nil {
		return account.APIKey{}, err
	}
	if len(m) == 0 || m["id"] == "" {
		return account.APIKey{}, shariah.Errorf(shariah.ENOTFOUND, "Key not found.")
	}
	k := account.APIKey{
		ID: m["id"], Hash: hash, Prefix: m["prefix"], UserID: m["user_id"], Email: m["email"],
		Plan: m["plan"], Active: m["active"] == "1", ReplacedBy: m["replaced_by"],
		CreatedAt: msTime(m["created_at"]),
	}
	if v := m["deactivated_at"]; v != "" {
		t := msTime(v)
		k.DeactivatedAt = &t
	}
	return k, nil
}

// KeyByPrefix returns the record of the key with the public prefix, or ENOTFOUND.
func (s *KeyStore) KeyByPrefix(ctx context.Context, prefix string) (account.APIKey, error) {
	hash, err := s.c.Do(ctx, s.c.B().Get().Key(prefixKey(prefix)).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return account.APIKey{}, shariah.Errorf(shariah.ENOTFOUND, "No key with this prefix.")
	}
	if err != nil {
		return account.APIKey{}, err
	}
	return s.KeyByHash(ctx, hash)
}

// KeysOfUser returns the user's keys, oldest first.
func (s *KeyStore) KeysOfUser(ctx context.Context, userID string) ([]account.APIKey, error) {
	hashes, err := s.c.Do(ctx, s.c.B().Zrange().Key(userKeysKey(userID)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	out := make([]account.APIKey, 0, len(hashes))
	for _, h := range hashes {
		k, err := s.KeyByHash(ctx, h)
		if shariah.ErrorCode(err) == shariah.ENOTFOUND {
			continue // index written, record not (interrupted create)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// Deactivate marks a key inactive. The meter reads the flag on every request, so the key is refused on
// its next one. Only an existing record is touched (HSET on a missing key would create a stub).
func (s *KeyStore) Deactivate(ctx context.Context, hash string, at time.Time, replacedBy string) error {
	k, err := s.KeyByHash(ctx, hash)
	if err != nil {
		return err
	}
	if !k.Active {
		return nil
	}
	cmd := s.c.B().Hset().Key(keyRecordKey(hash)).FieldValue().
		FieldValue("active", "0").
		FieldValue("deactivated_at", strconv.FormatInt(at.UnixMilli(), 10))
	if replacedBy != "" {
		cmd = cmd.FieldValue("replaced_by", replacedBy)
	}
	return s.changed(hash, s.c.Do(ctx, cmd.Build()).Error())
}

// SetPlan changes a key's plan; the meter applies it from the next request.
func (s *KeyStore) SetPlan(ctx context.Context, hash, plan string) error {
	if _, err := s.KeyByHash(ctx, hash); err != nil {
		return err
	}
	return s.changed(hash, s.c.Do(ctx, s.c.B().Hset().Key(keyRecordKey(hash)).FieldValue().FieldValue("plan", plan).Build()).Error())
}

// UserForEmail maps an email to its user id, creating the mapping (SET NX) when the email is new.
func (s *KeyStore) UserForEmail(ctx context.Context, email, newID string) (string, error) {
	c := s.c
	if err := c.Do(ctx, c.B().Set().Key(emailKey(email)).Value(newID).Nx().Build()).Error(); err != nil && !rueidis.IsRedisNil(err) {
		return "", err
	}
	return c.Do(ctx, c.B().Get().Key(emailKey(email)).Build()).ToString()
}

// MeterState reads a key's meter for a period.
func (s *KeyStore) MeterState(ctx context.Context, hash string, p account.Period) (account.MeterState, error) {
	vals, err := s.c.Do(ctx, s.c.B().Hmget().Key(meterKey(hash, p.ID())).Field("used", "overage", "leased").Build()).ToArray()
	if err != nil {
		return account.MeterState{}, err
	}
	var st account.MeterState
	if len(vals) == 3 {
		st.Used, _ = vals[0].AsInt64()
		st.Overage, _ = vals[1].AsInt64()
		st.Leased, _ = vals[2].AsInt64()
	}
	return st, nil
}

func boolField(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func msTime(s string) time.Time {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
