package edge_test

import (
	"encoding/json"
	"strconv"
	"testing"
)

// TestBenchSizedAnswersTheBytesAsked: make load's floor route answers a JSON body of exactly the size
// asked for (the cached screening's), and refuses a size that is out of range or no number with the envelope.
func TestBenchSizedAnswersTheBytesAsked(t *testing.T) {
	e := setup(t, options{benchRoutes: true})
	for _, n := range []int{32, 40, 22203, 65536} {
		r := e.do(t, "GET", "/bench/sized?bytes="+strconv.Itoa(n), nil, nil)
		var m map[string]any
		if r.StatusCode != 200 || len(r.body) != n || json.Unmarshal(r.body, &m) != nil || m["status"] != "ok" {
			t.Fatalf("bytes=%d: %d, %d bytes, %.40s", n, r.StatusCode, len(r.body), r.body)
		}
	}
	for _, q := range []string{"bytes=31", "bytes=65537", "bytes=-1", "bytes=abc"} {
		if r := e.do(t, "GET", "/bench/sized?"+q, nil, nil); r.StatusCode != 422 || r.errCode(t) != "VALIDATION_ERROR" {
			t.Fatalf("%s: %d %s", q, r.StatusCode, r.body)
		}
	}
}
