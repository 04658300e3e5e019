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

// TestUnquoteIsStrconvUnquote: the fast path reads what appendQuoted wrote, as strconv does.
func TestUnquoteIsStrconvUnquote(t *testing.T) {
	for _, s := range []string{"", "GET", "/api/quote/{symbol}", `a"b`, `a\b`, "tab\there", "é", "\x00", "日本"} {
		q := string(appendQuoted(nil, s))
		got, err := unquote(q)
		if err != nil || got != s {
			t.Errorf("unquote(%s) = %q, %v; want %q", q, got, err, s)
		}
	}
	for _, bad := range []string{`"`, `"a`, `a"`, `"a"b"`} {
		if _, err := unquote(bad); err == nil {
			t.Errorf("unquote(%s) accepted", bad)
		}
	}
}
