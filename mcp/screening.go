package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// symbolArg is the symbol argument most tools take.
type symbolArg struct {
	Symbol string `json:"symbol" jsonschema:"Ticker (AAPL, BRK-B, 7203.T)." schema:"required,minLength=1,maxLength=20"`
}

// optionalSymbol is the symbol argument of tools where it is optional.
type optionalSymbol struct {
	Symbol string `json:"symbol" jsonschema:"Ticker (AAPL, BRK-B, 7203.T)." schema:"minLength=1,maxLength=20"`
}

func (d Deps) screeningTools() []tool {
	return []tool{
		describeArg(newTool("screen_stock", "Screen a stock for Shariah compliance (cached when fresh) under a ruleset; the same result as POST /api/screen/{symbol}.",
			lookup, objectOut("symbol", "compliance_status", "ruleset"), d.screenStock),
			"ruleset", "Ruleset name (spec by default): "+strings.Join(d.Screener.Rulesets.Names(), ", ")),
		newTool("get_screening_result", "The cached screening of a symbol (no new computation); not found when it was never screened.",
			lookup, objectOut("symbol", "compliance_status"), d.getScreeningResult),
		newTool("compare_stocks", "Screen 2 to 5 stocks side by side.", lookup, objectOut("items"), d.compareStocks),
		newTool("get_all_screening_results", "Every cached screening under a ruleset (newest first), up to limit.",
			lookup, objectOut("results", "total"), d.getAllScreeningResults),
	}
}

type screenStockArgs struct {
	symbolArg
	ForceRefresh bool   `json:"force_refresh" schema:"default=false"`
	Ruleset      string `json:"ruleset"` // described at registration: the loaded rulesets
}

func (d Deps) screenStock(ctx context.Context, in screenStockArgs) (any, string, error) {
	a, err := d.resolve(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	r, _, err := d.Screener.Screen(ctx, a.Symbol, screening.ScreenOptions{Ruleset: in.Ruleset, ForceRefresh: in.ForceRefresh})
	if err != nil {
		return nil, "", err
	}
	return r, verdict(r), nil
}

// fresh tells whether a tool call computes afresh, by the rule its REST route prices with:
// force_refresh, and for screen_stock also no fresh result of its ruleset cached
// (screening.Screener.NeedsFresh, what POST /api/screen/{symbol} charges by).
func (d Deps) fresh(ctx context.Context, tool string, args map[string]any) bool {
	force, _ := args["force_refresh"].(bool)
	if tool != "screen_stock" || d.Screener == nil || d.Catalogs == nil {
		return force
	}
	raw, _ := args["symbol"].(string)
	ruleset, _ := args["ruleset"].(string)
	a, err := d.resolve(ctx, raw)
	if err != nil {
		return false // refused by the tool, and refunded
	}
	return d.Screener.NeedsFresh(ctx, a.Symbol, screening.ScreenOptions{Ruleset: ruleset, ForceRefresh: force})
}

type screeningResultArgs struct {
	symbolArg
	Ruleset string `json:"ruleset"`
}

func (d Deps) getScreeningResult(ctx context.Context, in screeningResultArgs) (any, string, error) {
	a, err := d.resolve(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	r, err := d.Screener.Cached(ctx, a.Symbol, screening.ScreenOptions{Ruleset: in.Ruleset})
	if err != nil {
		return nil, "", err
	}
	return r, verdict(r), nil
}

// symbolsArgs are 2 to 5 symbols to compare.
type symbolsArgs struct {
	Symbols []string `json:"symbols" schema:"required,minItems=2,maxItems=5"`
}

func (d Deps) compareStocks(ctx context.Context, in symbolsArgs) (any, string, error) {
	if len(in.Symbols) < 2 || len(in.Symbols) > 5 {
		var v shariah.Validation
		v.Add("give 2 to 5 symbols", "value_error.list", "arguments", "symbols")
		return nil, "", v.Err()
	}
	var items []screening.Result
	var lines []string
	for _, s := range in.Symbols {
		a, err := d.resolve(ctx, s)
		if err != nil {
			return nil, "", err
		}
		r, _, err := d.Screener.Screen(ctx, a.Symbol, screening.ScreenOptions{})
		if err != nil {
			return nil, "", err
		}
		items = append(items, r)
		lines = append(lines, verdict(r))
	}
	return map[string]any{"items": items}, strings.Join(lines, "\n"), nil
}

type allResultsArgs struct {
	Limit   int    `json:"limit" schema:"minimum=1,maximum=1000,default=100"`
	Ruleset string `json:"ruleset"`
}

func (d Deps) getAllScreeningResults(ctx context.Context, in allResultsArgs) (any, string, error) {
	if in.Limit < 1 || in.Limit > 1000 {
		return nil, "", invalid("must be 1 to 1000", "limit")
	}
	rs, _, err := d.Screener.Rulesets.Resolve(in.Ruleset, "")
	if err != nil {
		return nil, "", err
	}
	all, err := d.Screener.Results.Results(ctx, rs.Name)
	if err != nil {
		return nil, "", err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ScreenedAt.After(all[j].ScreenedAt) })
	total := len(all)
	all = all[:min(in.Limit, total)]
	if all == nil {
		all = []screening.Result{}
	}
	var lines []string
	for _, r := range all {
		lines = append(lines, r.Symbol+": "+r.ComplianceStatus+screening.MarksOf(r).Suffix())
	}
	return map[string]any{"results": all, "total": total}, fmt.Sprintf("%d cached screenings under %s.\n%s", total, rs.Name, strings.Join(lines, "\n")), nil
}
