package redis

import (
	"bytes"
	"context"
	_ "embed"
	"math"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// A quote or a screening result is stored as its served body (shariah.Served) with a header in front,
// in the record's own key, so that the body can never outlive or lag its record: whoever rewrites the
// record rewrites or drops the body with it (a binary that predates bodies writes the plain record,
// which is then served through the fallback and backfilled). The value stays a JSON object that decodes
// as the record, so readers that know nothing of the header (older binaries, Quote, Result) read it as
// before:
//
//	quote   {"_served":"<variant>","_etag":"<etag>","_at":"<as_of>",<the body's members>}
//	result  {"_served":"<variant>","_etag":"<etag>","_at":<screened_at, Unix ns>,"version":<v>,"result":<body>}
//
// The hot path reads the header by position (parseServed), never by decoding; a value whose header is
// missing, of another variant, or laid out otherwise is not served as stored. Values are written whole
// (SET); whoever edits one by hand must drop the header (re-encoding the JSON does: it reorders the
// members), or the body it holds is served as it is.

//go:embed lua/replace_if_equal.lua
var replaceIfEqualSrc string

var replaceIfEqualScript = rueidis.NewLuaScript(replaceIfEqualSrc)

const (
	servedPrefix = `{"_served":"`
	etagField    = `","_etag":`
	atField      = `,"_at":`
)

// framed writes the header of a served value: the variant, the ETag (quoted, a JSON string as it is)
// and the _at token (a JSON string or number), followed by a comma.
func framed(variant, etag, at string, size int) []byte {
	b := make([]byte, 0, len(servedPrefix)+len(variant)+len(etagField)+len(etag)+len(atField)+len(at)+1+size)
	b = append(b, servedPrefix...)
	b = append(b, variant...)
	b = append(b, etagField...)
	b = append(b, etag...)
	b = append(b, atField...)
	b = append(b, at...)
	return append(b, ',')
}

// parseServed reads a served value's header: the variant, the ETag (quoted), the _at token and the
// rest after it (the body's members, or the version and result). ok is false for any other value.
func parseServed(v []byte) (variant, etag, at, rest []byte, ok bool) {
	if !bytes.HasPrefix(v, []byte(servedPrefix)) {
		return nil, nil, nil, nil, false
	}
	v = v[len(servedPrefix):]
	i := bytes.IndexByte(v, '"')
	if i < 0 || !bytes.HasPrefix(v[i:], []byte(etagField)) {
		return nil, nil, nil, nil, false
	}
	variant, v = v[:i], v[i+len(etagField):]
	if len(v) < 2 || v[0] != '"' {
		return nil, nil, nil, nil, false
	}
	j := bytes.IndexByte(v[1:], '"')
	if j < 0 {
		return nil, nil, nil, nil, false
	}
	etag, v = v[:j+2], v[j+2:]
	if !bytes.HasPrefix(v, []byte(atField)) {
		return nil, nil, nil, nil, false
	}
	v = v[len(atField):]
	k := 0
	if len(v) > 0 && v[0] == '"' { // a string of ours (a date): no escapes
		j := bytes.IndexByte(v[1:], '"')
		if j < 0 {
			return nil, nil, nil, nil, false
		}
		k = j + 2
	} else { // a number of ours: digits
		for k < len(v) && v[k] >= '0' && v[k] <= '9' {
			k++
		}
		if k == 0 {
			return nil, nil, nil, nil, false
		}
	}
	if k >= len(v) || v[k] != ',' {
		return nil, nil, nil, nil, false
	}
	return variant, etag, v[:k], v[k+1:], true
}

// plainString reports whether s can stand in a header's JSON string as it is.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// digits reads a non-negative decimal int64 (a JSON number token of ours).
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// backfill replaces a value read without a body of the reader's variant by one with it, only if the key
// still holds what was read. It is best effort: the reader has already encoded the body it serves, and a
// failed or lost backfill leaves the fallback to the next reader.
func backfill(ctx context.Context, c rueidis.Client, key string, read, value []byte) {
	_ = replaceIfEqualScript.Exec(context.WithoutCancel(ctx), c, []string{strings.Clone(key)}, // (key does not escape: getValue)
		[]string{rueidis.BinaryString(read), rueidis.BinaryString(value)}).Error()
}

// getValue reads a string key, from the client-side cache when ttl > 0 (the bytes are the cache's: read
// only), and then first from the client's memo of such reads (read_memo.go). ok is false when the key is
// absent.
//
// key does not escape: a caller's key built for the call (resultKey, quoteKey) stays on its stack on a
// memo hit, and is copied for the commands and the memo on a miss.
func getValue(ctx context.Context, c rueidis.Client, key string, ttl time.Duration) ([]byte, bool, error) {
	memo := memoOf(c)
	if ttl > 0 && memo != nil {
		if b, ok := memo.get(key); ok {
			return b, true, nil
		}
	}
	k := strings.Clone(key)
	if ttl <= 0 {
		return valueOf(c.Do(ctx, c.B().Get().Key(k).Build()))
	}
	if memo == nil {
		return valueOf(c.DoCache(ctx, c.B().Get().Key(k).Cache(), ttl))
	}
	memo.misses.Add(1)
	gen := memo.generation()
	b, ok, err := valueOf(c.DoCache(ctx, c.B().Get().Key(k).Cache(), ttl))
	if ok {
		if memo.afterRead != nil {
			memo.afterRead()
		}
		memo.put(k, b, gen, ttl)
	}
	return b, ok, err
}

// valueOf reads a GET's answer: ok is false when the key is absent.
func valueOf(res rueidis.RedisResult) ([]byte, bool, error) {
	b, err := res.AsBytes()
	if rueidis.IsRedisNil(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}
