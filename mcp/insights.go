package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/screening"
)

func (d Deps) insightsTools() []tool {
	return []tool{newTool("get_compliance_insights", "Per-symbol insights: alternatives (compliant sector peers), peer_percentiles, cashflow, trajectory (8 quarters).",
		lookup, objectOut("symbol", "kind"), d.getComplianceInsights)}
}

// driftTools is the analyst's index-wide tool (GET /api/insights/drift).
func (d Deps) driftTools() []tool {
	return []tool{newTool("get_index_drift", "Companies of an index (or of one of your watchlists) whose filed quarterly ratios drift toward or across a "+
		"methodology's thresholds: direction, quarters of drift, distance to the threshold in percentage points, the methodology it threatens. "+
		"Filed data only; companies without filed quarters are counted in left_out.",
		lookup, objectOut("ruleset", "quarters", "considered", "companies", "left_out"), d.getIndexDrift)}
}

type driftArgs struct {
	Index       string `json:"index" jsonschema:"An index of bulk_screen list_indices (SP500, DJIA, ...); give this or watchlist_id."`
	WatchlistID string `json:"watchlist_id" jsonschema:"One of your watchlists (manage_watchlist); give this or index."`
	Ruleset     string `json:"ruleset" jsonschema:"Ruleset name (spec by default)."`
	Methodology string `json:"methodology" jsonschema:"One methodology's thresholds (aaoifi, djim, ftse, msci, sp); every methodology's when absent."`
	Quarters    int    `json:"quarters" jsonschema:"How many of each company's latest filed quarters are read." schema:"minimum=2,maximum=8,default=8"`
}

// getIndexDrift answers what GET /api/insights/drift answers (insights.TrajectoryAnalytics.Drift).
func (d Deps) getIndexDrift(ctx context.Context, in driftArgs) (any, string, error) {
	r, err := d.Trajectories.Drift(ctx, insights.DriftQuery{TrajectoryScope: insights.TrajectoryScope{Index: in.Index, WatchlistID: in.WatchlistID,
		UserID: userOf(ctx), Quarters: in.Quarters}, Ruleset: in.Ruleset, Methodology: in.Methodology})
	if err != nil {
		return nil, "", err
	}
	scope := "watchlist " + in.WatchlistID
	if r.Index != nil {
		scope = *r.Index
	}
	lines := []string{fmt.Sprintf("%s: %d companies drifting of %d with filed quarters (%d left out: %d illustrative, %d without filed quarters).",
		scope, len(r.Companies), r.Considered, len(r.LeftOut.Symbols), r.LeftOut.Illustrative, r.LeftOut.NoFiledQuarters)}
	for _, c := range r.Companies {
		lines = append(lines, fmt.Sprintf("%s %s %s %s's %s line (%s bp): %.1f -> %.1f bp over %d rising quarters, distance %.2f points.",
			c.Symbol, c.Ratio, c.Direction, c.MethodologyName, c.Rule, c.ThresholdBP, c.FirstBP, c.LatestBP, c.QuartersOfDrift, c.DistancePoints))
	}
	return r, strings.Join(lines, "\n"), nil
}

type insightsArgs struct {
	symbolArg
	Kind  string `json:"kind" schema:"required,enum=alternatives|staleness|trajectory|peer_percentiles|cashflow"`
	Limit int    `json:"limit" schema:"minimum=1,maximum=50,default=5"`
}

func (d Deps) getComplianceInsights(ctx context.Context, in insightsArgs) (any, string, error) {
	a, err := d.resolve(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	var res any
	switch in.Kind {
	case "alternatives":
		res, err = d.Insights.Alternatives(ctx, a.Symbol, screening.ScreenOptions{}, max(1, min(in.Limit, 50)))
	case "peer_percentiles":
		res, err = d.Insights.PeerPercentiles(ctx, a.Symbol)
	case "cashflow":
		if d.Filings == nil {
			return nil, "", shariah.Errorf(shariah.EUNAVAILABLE, "Filings are not available here.")
		}
		facts, ferr := d.Filings.Facts(ctx, a.Symbol)
		res, err = insights.CashflowOf(facts, a.CIK), ferr
	case "trajectory":
		res, err = d.trajectory(ctx, a.Symbol)
	case "staleness":
		res, err = d.staleness(ctx, a.Symbol)
	default:
		return nil, "", invalid("unknown kind", "kind")
	}
	if err != nil {
		return nil, "", err
	}
	b, _ := json.Marshal(res)
	return map[string]any{"symbol": a.Symbol, "kind": in.Kind, "insight": res}, string(b), nil
}

func (d Deps) trajectory(ctx context.Context, symbol string) (any, error) {
	if d.Trajectory == nil {
		return nil, shariah.Errorf(shariah.EUNAVAILABLE, "The trajectory series is not available here.")
	}
	pts, err := d.Trajectory.Trajectory(ctx, symbol, 8)
	if pts == nil {
		pts = []insights.TrajectoryPoint{}
	}
	return map[string]any{"quarters": pts, "summary": insights.TrajectorySummary(pts)}, err
}

func (d Deps) staleness(ctx context.Context, symbol string) (any, error) {
	if d.Filings == nil {
		return nil, shariah.Errorf(shariah.EUNAVAILABLE, "Filings are not available here.")
	}
	r, err := d.Screener.Cached(ctx, symbol, screening.ScreenOptions{})
	if err != nil {
		return nil, err
	}
	fs, err := d.Filings.Filings(ctx, symbol)
	return screening.StalenessOf(r, fs, d.EventRelevance), err
}
