package mcp

import (
	"context"
	"fmt"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/screening"
)

func (d Deps) dividendTools() []tool {
	return []tool{newTool("get_dividends", "Dividend history; include_purification adds the purification rate and the amount to purify per share of each payment.",
		lookup, objectOut("symbol", "dividends"), d.getDividends)}
}

type dividendsArgs struct {
	symbolArg
	IncludePurification bool `json:"include_purification" schema:"default=false"`
}

func (d Deps) getDividends(ctx context.Context, in dividendsArgs) (any, string, error) {
	a, err := d.resolve(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	ds, err := d.Ref.Dividends(ctx, a.Symbol)
	if err != nil {
		return nil, "", err
	}
	if ds == nil {
		ds = []shariah.Dividend{}
	}
	out := map[string]any{"symbol": a.Symbol, "dividends": ds}
	text := fmt.Sprintf("%d dividends on file for %s.", len(ds), a.Symbol)
	if !in.IncludePurification || d.Screener == nil {
		return out, text, nil
	}
	r, _, err := d.Screener.Screen(ctx, a.Symbol, screening.ScreenOptions{})
	if err != nil {
		return nil, "", err
	}
	out["purification_rate"] = r.PurificationRate // percent
	out["purification_rate_fraction"] = r.PurificationFraction
	out["purification"] = finance.PurifyPayments(ds, r.PurificationFraction, nil)
	if r.PurificationRate != nil {
		text += fmt.Sprintf(" Purification rate %s%% (%s).", r.PurificationRate.Decimal.String(), r.Ruleset.Name)
	} else {
		text += " Purification rate unknown: " + r.ComplianceExplanation
	}
	return out, text, nil
}
