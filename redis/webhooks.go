package redis

import (
	"context"
	_ "embed"
	"encoding/json"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/webhooks"
)

var (
	//go:embed lua/webhook_create.lua
	whCreateSrc string
	//go:embed lua/webhook_delete.lua
	whDeleteSrc string
	//go:embed lua/webhook_put.lua
	whPutSrc string
	//go:embed lua/webhook_delivery_create.lua
	whDeliveryCreateSrc string

	whCreate         = rueidis.NewLuaScript(whCreateSrc)
	whDelete         = rueidis.NewLuaScript(whDeleteSrc)
	whPut            = rueidis.NewLuaScript(whPutSrc)
	whDeliveryCreate = rueidis.NewLuaScript(whDeliveryCreateSrc)
)

// WebhookStore implements webhooks.Store: endpoints and their health on one slot ({ep}: the fan-out
// reads them all in one HGETALL, and creating one checks the user's count atomically), each delivery
// on its endpoint's slot.
type WebhookStore struct{ c rueidis.Client }

var _ webhooks.Store = (*WebhookStore)(nil)

// NewWebhookStore returns the store over the client.
func NewWebhookStore(c rueidis.Client) *WebhookStore { return &WebhookStore{c: c} }

// CreateEndpoint stores e unless its user has max endpoints.
func (s *WebhookStore) CreateEndpoint(ctx context.Context, e webhooks.Endpoint, max int) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	n, err := whCreate.Exec(ctx, s.c, []string{whUserKey(e.UserID), whAllKey()},
		[]string{strconv.Itoa(max), e.ID, strconv.FormatInt(e.CreatedAt.UnixMilli(), 10), string(b)}).AsInt64()
	if err != nil {
		return err
	}
	if n < 0 {
		return webhooks.ErrLimit
	}
	return nil
}

// Endpoint reads an endpoint with its disabled state; userID "" reads anyone's.
func (s *WebhookStore) Endpoint(ctx context.Context, userID, id string) (webhooks.Endpoint, bool, error) {
	res := s.c.DoMulti(ctx, s.c.B().Hget().Key(whAllKey()).Field(id).Build(),
		s.c.B().Hget().Key(whDisabledKey()).Field(id).Build())
	raw, err := res[0].ToString()
	if rueidis.IsRedisNil(err) {
		return webhooks.Endpoint{}, false, nil
	} else if err != nil {
		return webhooks.Endpoint{}, false, err
	}
	var e webhooks.Endpoint
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		return webhooks.Endpoint{}, false, err
	}
	if userID != "" && e.UserID != userID {
		return webhooks.Endpoint{}, false, nil
	}
	if d, err := res[1].ToString(); err == nil {
		e.Disabled = &webhooks.Disabled{}
		if err := json.Unmarshal([]byte(d), e.Disabled); err != nil {
			return webhooks.Endpoint{}, false, err
		}
	} else if !rueidis.IsRedisNil(err) {
		return webhooks.Endpoint{}, false, err
	}
	return e, true, nil
}

// Endpoints reads the user's endpoints, oldest first.
func (s *WebhookStore) Endpoints(ctx context.Context, userID string) ([]webhooks.Endpoint, error) {
	ids, err := s.c.Do(ctx, s.c.B().Zrange().Key(whUserKey(userID)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil || len(ids) == 0 {
		return []webhooks.Endpoint{}, err
	}
	all, err := s.endpoints(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]webhooks.Endpoint, 0, len(all))
	for _, e := range all {
		if e.UserID == userID {
			out = append(out, e)
		}
	}
	return out, nil
}

// AllEndpoints reads every endpoint (the fan-out), in no particular order.
func (s *WebhookStore) AllEndpoints(ctx context.Context) ([]webhooks.Endpoint, error) {
	return s.endpoints(ctx)
}

// endpoints reads the endpoints with the ids (none: all) and their disabled states in one round trip.
func (s *WebhookStore) endpoints(ctx context.Context, ids ...string) ([]webhooks.Endpoint, error) {
	var recs []rueidis.RedisMessage
	if len(ids) == 0 {
		res := s.c.DoMulti(ctx, s.c.B().Hgetall().Key(whAllKey()).Build(), s.c.B().Hgetall().Key(whDisabledKey()).Build())
		all, err := res[0].AsStrMap()
		if err != nil {
			return nil, err
		}
		disabled, err := res[1].AsStrMap()
		if err != nil {
			return nil, err
		}
		return decodeEndpoints(mapValues(all), disabled)
	}
	res := s.c.DoMulti(ctx, s.c.B().Hmget().Key(whAllKey()).Field(ids...).Build(), s.c.B().Hgetall().Key(whDisabledKey()).Build())
	recs, err := res[0].ToArray()
	if err != nil {
		return nil, err
	}
	disabled, err := res[1].AsStrMap()
	if err != nil {
		return nil, err
	}
	var raws []string
	for _, r := range recs {
		if v, err := r.ToString(); err == nil {
			raws = append(raws, v)
		}
	}
	return decodeEndpoints(raws, disabled)
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func decodeEndpoints(raws []string, disabled map[string]string) ([]webhooks.Endpoint, error) {
	out := make([]webhooks.Endpoint, 0, len(raws))
	for _, raw := range raws {
		var e webhooks.Endpoint
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			return nil, err
		}
		if d, ok := disabled[e.ID]; ok {
			e.Disabled = &webhooks.Disabled{}
			if err := json.Unmarshal([]byte(d), e.Disabled); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// DeleteEndpoint removes an endpoint of the user with its state.
func (s *WebhookStore) DeleteEndpoint(ctx context.Context, userID, id string) (bool, error) {
	n, err := whDelete.Exec(ctx, s.c, []string{whUserKey(userID), whAllKey(), whDisabledKey(), whHealthKey()}, []string{id}).AsInt64()
	return n == 1, err
}

// SetSecret rewrites an endpoint's secret if the user still has it.
func (s *WebhookStore) SetSecret(ctx context.Context, userID, id, secret string) (bool, error) {
	e, ok, err := s.Endpoint(ctx, userID, id)
	if err != nil || !ok {
		return false, err
	}
	e.Secret = secret
	b, err := json.Marshal(e)
	if err != nil {
		return false, err
	}
	n, err := whPut.Exec(ctx, s.c, []string{whAllKey(), whAllKey()}, []string{id, string(b)}).AsInt64()
	return n == 1, err
}

// Disable records an endpoint's disabled state if it still exists.
func (s *WebhookStore) Disable(ctx context.Context, id string, d webhooks.Disabled) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return whPut.Exec(ctx, s.c, []string{whAllKey(), whDisabledKey()}, []string{id, string(b)}).Error()
}

// Enable clears an endpoint's disabled state and its failure record.
func (s *WebhookStore) Enable(ctx context.Context, id string) error {
	for _, r := range s.c.DoMulti(ctx, s.c.B().Hdel().Key(whDisabledKey()).Field(id).Build(),
		s.c.B().Hdel().Key(whHealthKey()).Field(id+":since", id+":streak").Build()) {
		if err := r.Error(); err != nil {
			return err
		}
	}
	return nil
}

// Succeeded clears an endpoint's failure record.
func (s *WebhookStore) Succeeded(ctx context.Context, id string) error {
	return s.c.Do(ctx, s.c.B().Hdel().Key(whHealthKey()).Field(id+":since", id+":streak").Build()).Error()
}

// Failed notes a failed attempt (the first since a success starts the record) and returns its start.
func (s *WebhookStore) Failed(ctx context.Context, id string, at time.Time) (time.Time, error) {
	res := s.c.DoMulti(ctx, s.c.B().Hsetnx().Key(whHealthKey()).Field(id+":since").Value(strconv.FormatInt(at.UnixMilli(), 10)).Build(),
		s.c.B().Hget().Key(whHealthKey()).Field(id+":since").Build())
	ms, err := res[1].AsInt64()
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}

// Exhausted counts a delivery that ran out of retries and returns the streak.
func (s *WebhookStore) Exhausted(ctx context.Context, id string) (int, error) {
	n, err := s.c.Do(ctx, s.c.B().Hincrby().Key(whHealthKey()).Field(id+":streak").Increment(1).Build()).AsInt64()
	return int(n), err
}

// PutEvent keeps a delivered body for ttl.
func (s *WebhookStore) PutEvent(ctx context.Context, eventID string, body []byte, ttl time.Duration) error {
	return s.c.Do(ctx, s.c.B().Set().Key(whEventKey(eventID)).Value(rueidis.BinaryString(body)).Px(ttl).Build()).Error()
}

// EventBody reads a delivered body.
func (s *WebhookStore) EventBody(ctx context.Context, eventID string) ([]byte, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(whEventKey(eventID)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// CreateDeliveries stores the deliveries not stored yet, in one pipelined round trip, and reports
// which to queue: the new ones and those stored earlier and still pending.
func (s *WebhookStore) CreateDeliveries(ctx context.Context, ds []webhooks.Delivery, ttl time.Duration) ([]bool, error) {
	execs := make([]rueidis.LuaExec, len(ds))
	for i, d := range ds {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		execs[i] = rueidis.LuaExec{Keys: []string{whDeliveryKey(d.EndpointID, d.ID), whDeliveriesKey(d.EndpointID)},
			Args: []string{d.ID, strconv.FormatInt(d.CreatedAt.UnixMilli(), 10), strconv.FormatInt(ttl.Milliseconds(), 10), string(b)}}
	}
	out := make([]bool, len(ds))
	for i, r := range whDeliveryCreate.ExecMulti(ctx, s.c, execs...) {
		v, err := r.ToString()
		if err != nil {
			return nil, err
		}
		if v == "" {
			out[i] = true
			continue
		}
		var was webhooks.Delivery
		if err := json.Unmarshal([]byte(v), &was); err != nil {
			return nil, err
		}
		out[i] = was.Status == webhooks.StatusPending && was.Replays == 0 // a replay's task is its own
	}
	return out, nil
}

// Delivery reads one delivery of an endpoint.
func (s *WebhookStore) Delivery(ctx context.Context, endpointID, id string) (webhooks.Delivery, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(whDeliveryKey(endpointID, id)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return webhooks.Delivery{}, false, nil
	} else if err != nil {
		return webhooks.Delivery{}, false, err
	}
	var d webhooks.Delivery
	if err := json.Unmarshal(b, &d); err != nil {
		return webhooks.Delivery{}, false, err
	}
	return d, true, nil
}

// Deliveries reads an endpoint's latest deliveries, newest first (those past the retention are gone).
func (s *WebhookStore) Deliveries(ctx context.Context, endpointID string, limit int) ([]webhooks.Delivery, error) {
	ids, err := s.c.Do(ctx, s.c.B().Zrange().Key(whDeliveriesKey(endpointID)).Min("+inf").Max("-inf").Byscore().Rev().
		Limit(0, int64(limit)).Build()).AsStrSlice()
	if err != nil || len(ids) == 0 {
		return []webhooks.Delivery{}, err
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = whDeliveryKey(endpointID, id)
	}
	vals, err := s.c.Do(ctx, s.c.B().Mget().Key(keys...).Build()).ToArray()
	if err != nil {
		return nil, err
	}
	out := make([]webhooks.Delivery, 0, len(vals))
	for _, v := range vals {
		b, err := v.AsBytes()
		if rueidis.IsRedisNil(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		var d webhooks.Delivery
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// UpdateDelivery writes a delivery's state, keeping its expiry; one past its retention stays gone.
func (s *WebhookStore) UpdateDelivery(ctx context.Context, d webhooks.Delivery) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	err = s.c.Do(ctx, s.c.B().Set().Key(whDeliveryKey(d.EndpointID, d.ID)).Value(rueidis.BinaryString(b)).Xx().Keepttl().Build()).Error()
	if rueidis.IsRedisNil(err) {
		return nil
	}
	return err
}

// RelayCursor is the id of the last event fanned out.
func (s *WebhookStore) RelayCursor(ctx context.Context) (string, error) {
	v, err := s.c.Do(ctx, s.c.B().Get().Key(whCursorKey()).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", nil
	}
	return v, err
}

// SetRelayCursor saves the relay's cursor.
func (s *WebhookStore) SetRelayCursor(ctx context.Context, cursor string) error {
	return s.c.Do(ctx, s.c.B().Set().Key(whCursorKey()).Value(cursor).Build()).Error()
}
