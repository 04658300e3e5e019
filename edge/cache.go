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
	h := &c.Response().Header
	h.SetCanonical(hdrETag, unsafe.Slice(unsafe.StringData(etag), len(etag))) // copied by fasthttp
	var buf [32]byte
	h.SetCanonical(hdrCacheControl, strconv.AppendInt(append(buf[:0], "private, max-age="...), int64(maxAge/time.Second), 10))
	if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagMatches(inm, etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	h.SetContentTypeBytes(mimeJSON)
	return c.Send(body)
}

var (
	hdrETag         = []byte("Etag") // fasthttp's canonical form of ETag
	hdrCacheControl = []byte(fiber.HeaderCacheControl)
	mimeJSON        = []byte(fiber.MIMEApplicationJSONCharsetUTF8)
)

// sendServed writes a served body (shariah.Served) as sendRaw does on GET. POST (screening's canonical
// method) gets the body alone, as before: If-None-Match and caching are for reads.
func sendServed(c *fiber.Ctx, sv shariah.Served, maxAge time.Duration) error {
	if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
		return sendRaw(c, sv.Body, sv.ETag, maxAge)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(sv.Body)
}

// etagMatches implements If-None-Match's weak comparison over a list of tags (or *).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// ageMaxAge gives the cache lifetime of data as of a date: a minute for today's or yesterday's data
// (it may still move), an hour for anything older (end-of-day history changes only with an ingest).
func ageMaxAge(asOf string, now time.Time) time.Duration {
	t, err := time.Parse("2006-01-02", asOf)
	if err != nil || now.Sub(t) < 48*time.Hour {
		return time.Minute
	}
	return time.Hour
}
