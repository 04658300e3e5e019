package redis

// The reference store (reference.go): quotes (stored as their served bodies) and the trending list.

import (
	"context"
	"encoding/json"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// PutQuote stores a symbol's latest quote: as its served body when the store has the quote bodies.
func (s *RefStore) PutQuote(ctx context.Context, q market.Quote) error {
	var b []byte
	if s.quotes != nil {
		sv, err := s.quotes.Serve(q)
		if err != nil {
			return err
		}
		b = quoteValue(s.quotes.Variant(), sv, q.AsOf)
	}
	if b == nil {
		var err error
		if b, err = json.Marshal(q); err != nil {
			return err
		}
	}
	return s.c.Do(ctx, s.c.B().Set().Key(quoteKey(q.Symbol)).Value(rueidis.BinaryString(b)).Build()).Error()
}

// quoteValue is a quote stored as its served body: the header, then the body's members (the body less
// its opening brace), so the value still decodes as the quote. It is nil for a quote whose as-of date
// cannot stand in the header as it is (the quote is then stored alone).
func quoteValue(variant string, sv shariah.Served, asOf string) []byte {
	if !plainString(asOf) || len(sv.Body) < 3 || sv.Body[0] != '{' {
		return nil
	}
	b := framed(variant, sv.ETag, `"`+asOf+`"`, len(sv.Body))
	return append(b, sv.Body[1:]...)
}

// decodeQuote reads a stored quote, served body or not: the disclaimers of a served body are the
// route's, not the quote's.
func decodeQuote(b []byte) (market.Quote, error) {
	var q market.Quote
	err := json.Unmarshal(b, &q)
	q.Disclaimers = nil
	return q, err
}

// Quote reads a symbol's latest quote (client-side cached; Redis invalidates on change).
func (s *RefStore) Quote(ctx context.Context, symbol string) (market.Quote, bool, error) {
	b, ok, err := getValue(ctx, s.c, quoteKey(symbol), s.cacheTTL)
	if err != nil || !ok {
		return market.Quote{}, false, err
	}
	q, err := decodeQuote(b)
	return q, err == nil, err
}

// ServedQuote reads a symbol's quote as the body GET /api/quote serves (client-side cached on a cached
// store): the stored body when its variant is bodies', else the body encoded from the stored quote,
// which then replaces the value read (if it is still the stored one).
func (s *RefStore) ServedQuote(ctx context.Context, symbol string, bodies market.QuoteBodies) (shariah.StoredQuote, bool, error) {
	key := quoteKey(symbol)
	b, ok, err := getValue(ctx, s.c, key, s.cacheTTL)
	if err != nil || !ok {
		return shariah.StoredQuote{}, false, err
	}
	if q, ok := s.memo.get(key, bodies.Variant(), b); ok {
		return q, true, nil
	}
	variant, etag, at, rest, headed := parseServed(b)
	if headed && string(variant) == bodies.Variant() && len(at) >= 2 && at[0] == '"' {
		body := make([]byte, 1+len(rest))
		body[0] = '{'
		copy(body[1:], rest)
		q := shariah.StoredQuote{Served: shariah.Served{Body: body, ETag: string(etag)}, AsOf: string(at[1 : len(at)-1])}
		s.memo.put(key, bodies.Variant(), b, q)
		return q, true, nil
	}
	q, err := decodeQuote(b)
	if err != nil {
		return shariah.StoredQuote{}, false, err
	}
	sv, err := bodies.Serve(q)
	if err != nil {
		return shariah.StoredQuote{}, false, err
	}
	// Backfilled only when written by an older binary (no body at all): a body of another variant is
	// another running binary's, and two binaries would otherwise overwrite each other on every read.
	if v := quoteValue(bodies.Variant(), sv, q.AsOf); v != nil && !headed {
		backfill(ctx, s.c, key, b, v)
	}
	sq := shariah.StoredQuote{Served: sv, AsOf: q.AsOf}
	s.memo.put(key, bodies.Variant(), b, sq)
	return sq, true, nil
}

// Quotes reads several quotes; absent ones are missing from the map.
func (s *RefStore) Quotes(ctx context.Context, symbols []string) (map[string]market.Quote, error) {
	out := make(map[string]market.Quote, len(symbols))
	var res []rueidis.RedisResult
	if s.cacheTTL > 0 {
		cmds := make([]rueidis.CacheableTTL, len(symbols))
		for i, sym := range symbols {
			cmds[i] = rueidis.CT(s.c.B().Get().Key(quoteKey(sym)).Cache(), s.cacheTTL)
		}
		res = s.c.DoMultiCache(ctx, cmds...)
	} else {
		cmds := make(rueidis.Commands, len(symbols))
		for i, sym := range symbols {
			cmds[i] = s.c.B().Get().Key(quoteKey(sym)).Build()
		}
		res = s.c.DoMulti(ctx, cmds...)
	}
	for i, r := range res {
		b, err := r.AsBytes()
		if rueidis.IsRedisNil(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		q, err := decodeQuote(b)
		if err != nil {
			return nil, err
		}
		out[symbols[i]] = q
	}
	return out, nil
}

// PutTrending replaces the trending list.
func (s *RefStore) PutTrending(ctx context.Context, items []market.Trending) error {
	c, err := s.setJSON(trendingKey(), items)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, c).Error()
}

// Trending reads the trending list.
func (s *RefStore) Trending(ctx context.Context) ([]market.Trending, error) {
	var out []market.Trending
	_, err := s.getJSON(ctx, trendingKey(), &out, true)
	return out, err
}
