package edge

import (
	"bytes"
	"compress/gzip"
	"hash/maphash"
	"strconv"
	"strings"
	"sync/atomic"
)

// Stored bodies of 2 KiB or more (a cached screening is about 11.5 KB) are sent gzip-encoded to a client
// that accepts gzip (Accept-Encoding; most HTTP clients send it by default): compressed once per body and
// edge, kept by ETag, so a request pays a lookup, not a compression. The gzip representation has its own
// ETag (the body's with "-gzip" inside the quotes, as a representation of different bytes must), and
// If-None-Match matches either, since both stand for the same version of the resource. Every such
// response, gzip or not, says Vary: Accept-Encoding.

// gzipMinBody is the size from which a stored body is offered gzip-encoded: below it, a response fits in
// one packet either way.
const gzipMinBody = 2048

// gzipSlots is the number of compressed bodies an edge keeps (direct-mapped by ETag; a collision
// replaces). A cached screening compresses to about 3 KB: at most about 3 MB.
const gzipSlots = 1024

// gzipped is one stored body's gzip representation. body is nil when gzip does not make it smaller.
type gzipped struct {
	etag string // the identity body's ETag
	size int    // the identity body's length (a second check beside the ETag)
	body []byte
}

type gzipMemo struct {
	seed  maphash.Seed
	slots [gzipSlots]atomic.Pointer[gzipped]
}

var servedGzip = &gzipMemo{seed: maphash.MakeSeed()}

// get returns the gzip representation of a stored body, compressing it on the first request for its
// ETag (concurrent first requests may each compress; the result is the same).
func (m *gzipMemo) get(etag string, body []byte) *gzipped {
	slot := &m.slots[maphash.String(m.seed, etag)&(gzipSlots-1)]
	if g := slot.Load(); g != nil && g.etag == etag && g.size == len(body) {
		return g
	}
	g := &gzipped{etag: etag, size: len(body)}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // once per body and edge
	if _, err := zw.Write(body); err == nil && zw.Close() == nil && buf.Len() < len(body) {
		g.body = buf.Bytes()
	}
	slot.Store(g)
	return g
}

// appendGzipETag appends the ETag of the gzip representation of a body whose ETag is etag ("tag"
// becomes "tag-gzip"); isGzipETag recognises it.
func appendGzipETag(dst []byte, etag string) []byte {
	if strings.HasSuffix(etag, `"`) && len(etag) >= 2 {
		return append(append(append(dst, etag[:len(etag)-1]...), "-gzip"...), '"')
	}
	return append(append(dst, etag...), "-gzip"...)
}

func isGzipETag(t, etag string) bool {
	if strings.HasSuffix(etag, `"`) && len(etag) >= 2 {
		return len(t) == len(etag)+5 && t[:len(etag)-1] == etag[:len(etag)-1] && t[len(etag)-1:] == `-gzip"`
	}
	return t == etag+"-gzip"
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip: a gzip (or x-gzip) entry with a
// quality above 0, or else a * entry above 0 (RFC 9110 12.5.3). Stored bodies and the embedded assets
// (assets.go) negotiate with it.
func acceptsGzip(header string) bool {
	star := false
	for header != "" {
		var part string
		part, header, _ = strings.Cut(header, ",")
		name, params, _ := strings.Cut(part, ";")
		name = strings.TrimSpace(name)
		switch {
		case strings.EqualFold(name, "gzip") || strings.EqualFold(name, "x-gzip"):
			return qualityAboveZero(params)
		case name == "*":
			star = qualityAboveZero(params)
		}
	}
	return star
}

// qualityAboveZero reads the q parameter of an Accept-Encoding entry (absent: 1).
func qualityAboveZero(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err != nil || q > 0 // an unreadable q is ignored, as if absent
	}
	return true
}
