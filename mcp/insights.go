package mcp

import (
	"context"
	"encoding/json"

	shariah "github.com/shariah-screen/shariah"
)

func (d Deps) insightsTools() []tool {
	return []tool{newTool("get_compliance_insights", "Per-symbol insights: alternatives (compliant sector peers), peer_percentiles, cashflow, trajectory (8 quarters).",
		lookup, objectOut("symbol", "kind"), d.getComplianceInsights)}
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
		res, err = d.Insights.Alternatives(ctx, a.Symbol, shariah.ScreenOptions{}, max(1, min(in.Limit, 50)))
	case "peer_percentiles":
		res, err = d.Insights.PeerPercentiles(ctx, a.Symbol)
	case "cashflow":
		if d.Filings == nil {
			return nil, "", shariah.Errorf(shariah.EUNAVAILABLE, "Filings are not available here.")
		}
		facts, ferr := d.Filings.Facts(ctx, a.Symbol)
		res, err = shariah.CashflowOf(facts, a.CIK), ferr
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
		pts = []shariah.TrajectoryPoint{}
	}
	return map[string]any{"quarters": pts, "summary": shariah.TrajectorySummary(pts)}, err
}

func (d Deps) staleness(ctx context.Context, symbol string) (any, error) {
	if d.Filings == nil {
		return nil, shariah.Errorf(shariah.EUNAVAILABLE, "Filings are not available here.")
	}
	r, err := d.Screener.Cached(ctx, symbol, shariah.ScreenOptions{})
	if err != nil {
		return nil, err
	}
	fs, err := d.Filings.Filings(ctx, symbol)
	return shariah.StalenessOf(r, fs, d.EventRelevance), err
}
