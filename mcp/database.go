package mcp

import (
	"context"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/screening"
)

func (d Deps) searchTools() []tool {
	return []tool{newTool("search_stocks", "Search the reference database by name or symbol.", lookup, objectOut("results", "total"), d.searchStocks)}
}

func (d Deps) stockInfoTools() []tool {
	return []tool{newTool("get_stock_info", "A symbol's database record and fundamentals with provenance; full adds the quote and the screening.",
		lookup, objectOut("record"), d.getStockInfo)}
}

type searchArgs struct {
	Query     string `json:"query" schema:"required,minLength=1,maxLength=100"`
	AssetType string `json:"asset_type" schema:"enum=all|equities|etf|fund|index"`
	Sector    string `json:"sector"`
	Country   string `json:"country"`
	Exchange  string `json:"exchange"`
	Limit     int    `json:"limit" schema:"minimum=1,maximum=100,default=20"`
}

func (d Deps) searchStocks(ctx context.Context, in searchArgs) (any, string, error) {
	typ, ok := shariah.ParseAssetFilter(in.AssetType)
	if !ok {
		var v shariah.Validation
		v.Add(shariah.AssetFilterMessage, "value_error.enum", "arguments", "asset_type")
		return nil, "", v.Err()
	}
	q := catalog.SearchQuery{Q: in.Query, Type: typ, Sector: in.Sector, Country: in.Country, Exchange: in.Exchange, Limit: in.Limit}
	cat, err := d.Catalogs.Get(ctx)
	if err != nil {
		return nil, "", err
	}
	hits, total := cat.Search(q)
	var syms []string
	for _, h := range hits {
		syms = append(syms, h.Symbol)
	}
	return map[string]any{"results": hits, "total": total}, fmt.Sprintf("%d matches: %s", total, strings.Join(syms, ", ")), nil
}

type stockInfoArgs struct {
	symbolArg
	Full bool `json:"full" schema:"default=false"`
}

func (d Deps) getStockInfo(ctx context.Context, in stockInfoArgs) (any, string, error) {
	a, err := d.resolve(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	fs, err := d.Ref.Fundamentals(ctx, a.Symbol)
	if err != nil {
		return nil, "", err
	}
	out := map[string]any{"record": a, "fundamentals": fs}
	text := fmt.Sprintf("%s %s (%s, %s, %s): %d reporting periods on file.", a.Symbol, a.Name, a.Type, a.Country, a.Sector, len(fs))
	// The inputs a screening uses, each with its period (as /api/filings/{symbol}/provenance).
	var rs *screening.Ruleset
	if d.Screener != nil {
		rs, _, _ = d.Screener.Rulesets.Resolve("", "")
	}
	if sp := screening.PeriodsFor(fs, rs); sp.Screened != nil {
		out["period_label"], out["inputs"] = screening.PeriodLabel(*sp.Screened), screening.ScreenedInputProvenances(sp, a.CIK)
		text += fmt.Sprintf(" A screening stands on %s (period ending %s).", screening.PeriodLabel(*sp.Screened), sp.Screened.PeriodEnd)
	}
	if !in.Full {
		return out, text, nil
	}
	if q, ok, err := d.Ref.Quote(ctx, a.Symbol); err != nil {
		return nil, "", err
	} else if ok {
		out["quote"] = q
		text += fmt.Sprintf(" Price %s %s as of %s.", q.Price.String(), q.Currency, q.AsOf)
	}
	if a.Type == shariah.Equity && d.Screener != nil {
		r, _, err := d.Screener.Screen(ctx, a.Symbol, screening.ScreenOptions{})
		if err != nil {
			return nil, "", err
		}
		out["screening"] = r
		text += " " + verdict(r)
	}
	return out, text, nil
}
