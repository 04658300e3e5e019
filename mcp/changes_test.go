package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// get_verdict_changes answers what GET /api/changes answers: the same domain call
// (screening.ChangeFeed.Changes) over the same change log, and the same 422s and 410 as tool errors.
func TestGetVerdictChangesIsTheFeedsAnswer(t *testing.T) {
	t.Parallel()
	h := start(t)
	ctx := context.Background()
	r, _, err := h.d.Screener.Screen(ctx, "MSFT", screening.ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []string{"NON_COMPLIANT", r.ComplianceStatus} {
		r.ComplianceStatus, r.ScreenedAt = status, r.ScreenedAt.Add(1)
		if err := h.d.Screener.Results.PutResult(ctx, r, 1); err != nil {
			t.Fatal(err)
		}
	}
	args := map[string]any{"symbols": []any{"msft"}, "limit": 1}
	res, got := h.call(t, "get_verdict_changes", args)
	if res.IsError {
		t.Fatalf("get_verdict_changes: %s", text(res))
	}
	feed := &screening.ChangeFeed{Log: h.d.Screener.Results.(screening.ChangeLog), Indices: h.d.Ref}
	direct, err := feed.Changes(ctx, screening.ChangeQuery{Symbols: []string{"msft"}, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(direct); string(mustJSON(got)) != string(mustJSON(decode(t, b))) || len(direct.Changes) != 1 || !direct.HasMore {
		t.Fatalf("tool and feed differ:\n tool %s\n feed %s", mustJSON(got), b)
	}
	if !strings.Contains(text(res), "MSFT spec (overall): ") {
		t.Errorf("text: %s", text(res))
	}
	for _, bad := range []map[string]any{{"since": "yesterday"}, {"index": "NOPE100"}, {"watchlist": "nope"}} {
		if res, _ := h.call(t, "get_verdict_changes", bad); !res.IsError || !strings.Contains(text(res), shariah.EVALIDATION) {
			t.Errorf("%v: %s", bad, text(res))
		}
	}
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
