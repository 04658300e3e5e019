package mcp

import (
	"context"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/etf"
)

func (d Deps) etfTools() []tool {
	return []tool{
		newTool("screen_etf", "Screen an ETF through its holdings (look-through); cached unless force_refresh.",
			lookup, objectOut("symbol", "compliance_status"), d.screenETF),
		newTool("get_etf_info", "An ETF's holdings or its fund record.", lookup, objectOut("symbol"), d.getETFInfo),
		newTool("etf_purification", "Amount to purify on an ETF investment: dividend income (given, or estimated from the last 12 months) x the holdings-weighted purification rate.",
			lookup, objectOut("symbol", "purification_amount"), d.etfPurification),
		newTool("compare_etfs", "Compare 2 to 5 ETFs: holdings, look-through screening and pairwise overlap.", lookup, objectOut("items", "overlap"), d.compareETFs),
	}
}

type screenETFArgs struct {
	symbolArg
	ForceRefresh bool   `json:"force_refresh" schema:"default=false"`
	Ruleset      string `json:"ruleset"`
}

func (d Deps) screenETF(ctx context.Context, in screenETFArgs) (any, string, error) {
	a, err := d.ETFs.ETFAsset(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	var r etf.Result
	if !in.ForceRefresh {
		r, err = d.ETFs.Cached(ctx, a.Symbol, in.Ruleset)
	}
	if in.ForceRefresh || shariah.ErrorCode(err) == shariah.ENOTFOUND {
		r, err = d.ETFs.Screen(ctx, a.Symbol, in.Ruleset, in.ForceRefresh)
	}
	if err != nil {
		return nil, "", err
	}
	return r, fmt.Sprintf("%s (%s): %s; %s%% of the weight compliant, %s%% non-compliant, %s%% unknown (%d holdings as of %s).",
		r.Symbol, r.Name, r.ComplianceStatus, r.CompliantWeightPct, r.NonCompliantWeightPct, r.UnknownWeightPct, r.HoldingsCount, r.HoldingsAsOf), nil
}

type etfInfoArgs struct {
	symbolArg
	DataType string `json:"data_type" schema:"enum=holdings|fund_info,default=holdings"`
}

func (d Deps) getETFInfo(ctx context.Context, in etfInfoArgs) (any, string, error) {
	a, err := d.ETFs.ETFAsset(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	switch in.DataType {
	case "", "holdings":
		hs, err := d.ETFs.Holdings(ctx, a)
		if err != nil {
			return nil, "", err
		}
		var top []string
		for _, h := range hs[:min(10, len(hs))] {
			top = append(top, h.Symbol)
		}
		return map[string]any{"symbol": a.Symbol, "holdings": hs, "count": len(hs)}, fmt.Sprintf("%s holds %d positions; largest: %s.", a.Symbol, len(hs), strings.Join(top, ", ")), nil
	case "fund_info":
		return map[string]any{"symbol": a.Symbol, "record": a}, fmt.Sprintf("%s %s (%s, %s).", a.Symbol, a.Name, a.Exchange, a.Currency), nil
	}
	return nil, "", invalid("must be holdings or fund_info", "data_type")
}

type etfPurificationArgs struct {
	symbolArg
	Investment *shariah.Number `json:"investment_amount" schema:"required,exclusiveMinimum=0,maximum=1000000000000000"`
	Dividend   *shariah.Number `json:"dividend_income" schema:"minimum=0,maximum=1000000000000000"`
}

func (d Deps) etfPurification(ctx context.Context, in etfPurificationArgs) (any, string, error) {
	req := etf.PurificationRequest{Investment: in.Investment, Dividend: in.Dividend}
	if err := req.Validate("arguments"); err != nil {
		return nil, "", err
	}
	p, err := d.ETFs.Purify(ctx, in.Symbol, "", req.Investment.Decimal, req.DividendDecimal())
	if err != nil {
		return nil, "", err
	}
	if d.Education != nil {
		p.Disclaimers = d.Education.DisclaimersFor("purification", "etf_lookthrough")
	}
	text := p.Note
	if p.PurificationAmount != nil {
		text = fmt.Sprintf("Purify %s USD of %s USD dividends (%s).", p.PurificationAmount.StringFixed(2), p.DividendIncome.StringFixed(2), p.DividendBasis)
	}
	return p, text, nil
}

func (d Deps) compareETFs(ctx context.Context, in symbolsArgs) (any, string, error) {
	if len(in.Symbols) < 2 || len(in.Symbols) > 5 {
		return nil, "", invalid("give 2 to 5 symbols", "symbols")
	}
	c, err := d.ETFs.Compare(ctx, in.Symbols, "")
	if err != nil {
		return nil, "", err
	}
	var lines []string
	for _, it := range c.Items {
		lines = append(lines, fmt.Sprintf("%s: %s, %s%% compliant weight", it.Symbol, it.ComplianceStatus, it.CompliantWeightPct))
	}
	for _, o := range c.Overlap {
		lines = append(lines, fmt.Sprintf("%s/%s overlap %s%%", o.A, o.B, o.OverlapPct))
	}
	return c, strings.Join(lines, "\n"), nil
}
