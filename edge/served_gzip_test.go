package edge

import (
	"bytes"
	"compress/gzip"
	"hash/maphash"
	"io"
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
	// a body gzip does not shrink is kept identity
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i*i*31 + i>>3)
	}
	if g := m.get(shariah.ETag(random), random); g.body != nil && len(g.body) >= len(random) {
		t.Fatalf("gzip kept although it is not smaller: %d >= %d", len(g.body), len(random))
	}
	for etag, want := range map[string]string{`"abc"`: `"abc-gzip"`, `W/"abc"`: `W/"abc-gzip"`, `abc`: `abc-gzip`} {
		if got := string(appendGzipETag(nil, etag)); got != want {
			t.Errorf("gzip ETag of %s: %s, want %s", etag, got, want)
		}
		if !isGzipETag(want, etag) || isGzipETag(etag, etag) || isGzipETag(want+"x", etag) || isGzipETag(`"abd-gzip"`, etag) {
			t.Errorf("isGzipETag for %s", etag)
		}
	}
	for header, want := range map[string]bool{`"abc"`: true, `"abc-gzip"`: true, `W/"abc-gzip"`: true, `"x", "abc-gzip"`: true, `"abc-gzipx"`: false, `"ab"`: false, `*`: true} {
		if etagMatches(header, `"abc"`, true) != want || etagMatches(header, `"abc"`, false) != (want && header != `"abc-gzip"` && header != `W/"abc-gzip"` && header != `"x", "abc-gzip"`) {
			t.Errorf("etagMatches(%s)", header)
		}
	}
}
