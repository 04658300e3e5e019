package analytics

import (
	"strconv"
	"testing"
)

// TestAppendQuotedIsAppendQuote: the fast path quotes exactly as strconv does.
func TestAppendQuotedIsAppendQuote(t *testing.T) {
	for _, s := range []string{"", "GET", "/api/quote/{symbol}", "01a2-b3", `a"b`, `a\b`, "tab\there", "é", "\x00", "\x7f", "line\n", "日本"} {
		if got, want := string(appendQuoted(nil, s)), strconv.Quote(s); got != want {
			t.Errorf("appendQuoted(%q) = %s, want %s", s, got, want)
		}
	}
}
