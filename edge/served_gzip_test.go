package edge

import (
	"bytes"
	"compress/gzip"
	"hash/maphash"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
)

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"":                              false,
		"gzip":                          true,
		"GZIP":                          true,
		"x-gzip":                        true,
		"gzip, deflate, br":             true,
		"deflate, br":                   false,
		"br;q=1.0, gzip;q=0.8, *;q=0.1": true,
		"gzip;q=0":                      false,
		"gzip; q=0.000":                 false,
		"gzip;q=0.001":                  true,
		"*":                             true,
		"*;q=0":                         false,
		"identity":                      false,
		"gzip;q=0, *":                   false, // gzip named and refused: * does not bring it back
		"deflate, *;q=0.5":              true,
		"gzipx":                         false,
		"gzip;level=9":                  true, // not a q parameter
		"gzip;q=abc":                    true, // an unreadable q is ignored
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestGzipMemo(t *testing.T) {
	m := &gzipMemo{seed: maphash.MakeSeed()}
	body := []byte(strings.Repeat(`{"methodology":"aaoifi","pass":true},`, 200))
	etag := shariah.ETag(body)
	g := m.get(etag, body)
	if g.body == nil || len(g.body) >= len(body) {
		t.Fatalf("gzip of %d bytes: %d bytes", len(body), len(g.body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(g.body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, body) {
		t.Fatalf("the gzip body does not decode to the body: %v", err)
	}
	if again := m.get(etag, body); again != g {
		t.Fatal("a second request for the same ETag compressed again")
	}
	// another body under the same ETag (a length that differs) is compressed for itself
	other := append(append([]byte(nil), body...), ' ')
	if g2 := m.get(etag, other); g2 == g || g2.size != len(other) {
		t.Fatal("a body of another length was served the first body's gzip")
	}
	// a body gzip does not make smaller (random bytes) is kept identity
	random := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	if g := m.get(shariah.ETag(random), random); g.body != nil {
		t.Fatalf("a gzip of %d bytes kept for %d random bytes", len(g.body), len(random))
	}
	for etag, want := range map[string]string{`"abc"`: `"abc-gzip"`, `W/"abc"`: `W/"abc-gzip"`, `abc`: `abc-gzip`} {
		if got := string(appendGzipETag(nil, etag)); got != want {
			t.Errorf("gzip ETag of %s: %s, want %s", etag, got, want)
		}
		if !isGzipETag(want, etag) || isGzipETag(etag, etag) || isGzipETag(want+"x", etag) || isGzipETag(`"abd-gzip"`, etag) {
			t.Errorf("isGzipETag for %s", etag)
		}
	}
	for _, c := range []struct {
		header        string
		plain, orGzip bool // matches "abc" without and with its gzip tag
	}{
		{`"abc"`, true, true}, {`W/"abc"`, true, true}, {`*`, true, true},
		{`"abc-gzip"`, false, true}, {`W/"abc-gzip"`, false, true}, {`"x", "abc-gzip"`, false, true},
		{`"abc-gzipx"`, false, false}, {`"ab"`, false, false}, {`"abc-gzip`, false, false},
	} {
		if etagMatches(c.header, `"abc"`, false) != c.plain || etagMatches(c.header, `"abc"`, true) != c.orGzip {
			t.Errorf("If-None-Match %s: want %v without the gzip tag, %v with", c.header, c.plain, c.orGzip)
		}
	}
}
