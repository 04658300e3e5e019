package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/insights"
)

// get_index_drift answers what GET /api/insights/drift answers: the same domain call
// (TrajectoryAnalytics.Drift) over the same stores, so the same companies in the same order, and the
// same 422s as tool errors.
func TestGetIndexDriftIsTheRoutesAnswer(t *testing.T) {
	t.Parallel()
	h := start(t)
	ctx := context.Background()
	if _, err := h.db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	traj := h.svc.Trajectory
	quarters := func(source string, debtPct ...float64) []insights.TrajectoryPoint {
		var pts []insights.TrajectoryPoint
		for i, v := range debtPct {
			f := v / 100
			pts = append(pts, insights.TrajectoryPoint{PeriodEnd: fmt.Sprintf("2025-%02d-30", 3*i+3), Period: fmt.Sprintf("Q%d", i+1), DebtAssets: &f, Source: source})
		}
		return pts
	}
	if err := traj.PutTrajectories(ctx, map[string][]insights.TrajectoryPoint{
		"MSFT": quarters(shariah.SourceFiling, 25, 28, 30, 32), "KO": quarters(shariah.SourceFiling, 30, 31, 32, 34),
		"TSLA": quarters(shariah.SourceFiling, 35, 30, 28, 25), "NVDA": quarters(shariah.SourceIllustrative, 20, 30, 40, 50),
	}); err != nil {
		t.Fatal(err)
	}
	if err := h.ref.PutIndex(ctx, catalog.IndexInfo{Name: "DRIFT", Symbols: []string{"MSFT", "KO", "TSLA", "NVDA", "AAPL"}, Source: "test"}); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"index": "DRIFT", "ruleset": "ftse-2024", "methodology": "ftse", "quarters": 4}
	res, got := h.call(t, "get_index_drift", args)
	if res.IsError {
		t.Fatalf("get_index_drift: %s", text(res))
	}
	direct, err := h.svc.Trajectories.Drift(ctx, insights.DriftQuery{TrajectoryScope: insights.TrajectoryScope{Index: "DRIFT", Quarters: 4}, Ruleset: "ftse-2024", Methodology: "ftse"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(direct)
	var want map[string]any
	json.Unmarshal(b, &want)
	gb, _ := json.Marshal(got)
	if string(gb) != string(mustJSON(want)) {
		t.Fatalf("tool and route differ:\n tool %s\nroute %s", gb, mustJSON(want))
	}
	var syms []string
	for _, c := range got["companies"].([]any) {
		syms = append(syms, c.(map[string]any)["symbol"].(string))
	}
	if strings.Join(syms, ",") != "KO,MSFT" || got["considered"] != 3.0 || got["left_out"].(map[string]any)["illustrative"] != 2.0 ||
		!strings.Contains(text(res), "KO debt_to_assets across FTSE") {
		t.Fatalf("companies %v, %v\n%s", syms, got, text(res))
	}
	// The default window and every methodology: still an answer.
	if res, m := h.call(t, "get_index_drift", map[string]any{"index": "DRIFT"}); res.IsError || m["quarters"] != 8.0 || m["ruleset"] != "spec" {
		t.Fatalf("defaults: %s", text(res))
	}
	for _, bad := range []map[string]any{{}, {"index": "NOPE"}, {"index": "DRIFT", "quarters": 9}, {"index": "DRIFT", "watchlist_id": "x"},
		{"index": "DRIFT", "methodology": "nope"}} {
		if res, _ := h.call(t, "get_index_drift", bad); !res.IsError || !strings.Contains(text(res), shariah.EVALIDATION) {
			t.Errorf("%v: %s", bad, text(res))
		}
	}
	// A watchlist of another user does not exist for the caller.
	if res, _ := h.call(t, "get_index_drift", map[string]any{"watchlist_id": "0190a0a0-0000-7000-8000-000000000000"}); !res.IsError ||
		!strings.Contains(text(res), shariah.ENOTFOUND) {
		t.Errorf("unknown watchlist: %s", text(res))
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
