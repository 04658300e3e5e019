package edge

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
)

// sendCacheable writes v as JSON with a strong ETag (a hash of the body) and Cache-Control, and answers
// 304 Not Modified with no body when the client's If-None-Match already holds that ETag. maxAge follows
// the data's age: end-of-day data that will not change before the next ingest may be cached longer.
func sendCacheable(c *fiber.Ctx, v any, maxAge time.Duration) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sendRaw(c, body, shariah.ETag(body), maxAge)
}

// sendRaw writes a JSON body with its ETag and Cache-Control, or 304 when If-None-Match matches.
// (Headers set under their canonical names, the values built on the stack: quotes and cached screenings
// are served through here.)
func sendRaw(c *fiber.Ctx, body []byte, etag string, maxAge time.Duration) error {
	return sendTagged(c, body, etag, false, nil, maxAge)
}

// sendTagged is sendRaw with the representation's Content-Encoding (nil: none) set when the body is sent,
// and, with either, If-None-Match matching the identity body's ETag and its gzip representation's alike
// (etag is then the identity body's; the ETag sent is the gzip one when encoding is gzip).
func sendTagged(c *fiber.Ctx, body []byte, etag string, either bool, encoding []byte, maxAge time.Duration) error {
	h := &c.Response().Header
	var buf [64]byte
	if encoding != nil {
		h.SetCanonical(hdrETag, appendGzipETag(buf[:0], etag))
	} else {
		h.SetCanonical(hdrETag, unsafe.Slice(unsafe.StringData(etag), len(etag))) // copied by fasthttp
	}
	h.SetCanonical(hdrCacheControl, strconv.AppendInt(append(buf[:0], "private, max-age="...), int64(maxAge/time.Second), 10))
	if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagMatches(inm, etag, either) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	h.SetContentTypeBytes(mimeJSON)
	if encoding != nil {
		h.SetCanonical(hdrContentEncoding, encoding)
	}
	return c.Send(body)
}

var (
	hdrETag            = []byte("Etag") // fasthttp's canonical form of ETag
	hdrCacheControl    = []byte(fiber.HeaderCacheControl)
	hdrVary            = []byte(fiber.HeaderVary)
	hdrAcceptEncoding  = []byte(fiber.HeaderAcceptEncoding)
	hdrContentEncoding = []byte(fiber.HeaderContentEncoding)
	gzipToken          = []byte("gzip")
	mimeJSON           = []byte(fiber.MIMEApplicationJSONCharsetUTF8)
)

// sendServed writes a served body (shariah.Served) as sendRaw does on GET, gzip-encoded when it is large
// and the client accepts gzip (served_gzip.go). POST (screening's canonical method) gets the body alone,
// as before: If-None-Match and caching are for reads.
func sendServed(c *fiber.Ctx, sv shariah.Served, maxAge time.Duration) error {
	if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Send(sv.Body)
	}
	if len(sv.Body) >= gzipMinBody {
		h := &c.Response().Header
		h.SetCanonical(hdrVary, hdrAcceptEncoding)
		if acceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
			if g := servedGzip.get(sv.ETag, sv.Body); g.body != nil {
				return sendTagged(c, g.body, sv.ETag, true, gzipToken, maxAge)
			}
		}
		return sendTagged(c, sv.Body, sv.ETag, true, nil, maxAge)
	}
	return sendRaw(c, sv.Body, sv.ETag, maxAge)
}

// parseDay is time.Parse("2006-01-02", s) (UTC), ok false where that errs, without its general parser
// in the usual case (every quote reads its date: 0.5 µs a request by time.Parse).
func parseDay(s string) (time.Time, bool) {
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		n := 0
		digits := true
		for i := 0; i < 10; i++ {
			if i == 4 || i == 7 {
				continue
			}
			c := s[i]
			if c < '0' || c > '9' {
				digits = false
				break
			}
			n = n*10 + int(c-'0')
		}
		if digits {
			y, m, d := n/10000, time.Month(n/100%100), n%100
			if t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC); t.Month() == m && t.Day() == d {
				return t, true
			}
		}
	}
	t, err := time.Parse("2006-01-02", s)
	return t, err == nil
}

// etagMatches implements If-None-Match's weak comparison over a list of tags (or *); with orGzip, the
// tag of etag's gzip representation matches too.
func etagMatches(header, etag string, orGzip bool) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag || orGzip && isGzipETag(t, etag) {
			return true
		}
	}
	return false
}

// ageMaxAge gives the cache lifetime of data as of a date: a minute for today's or yesterday's data
// (it may still move), an hour for anything older (end-of-day history changes only with an ingest).
func ageMaxAge(asOf string, now time.Time) time.Duration {
	t, ok := parseDay(asOf)
	if !ok || now.Sub(t) < 48*time.Hour {
		return time.Minute
	}
	return time.Hour
}
