package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/shariah-screen/shariah/screening"
)

func (d Deps) portfolioTools() []tool {
	return []tool{newTool("scan_portfolio", "Screen up to 100 symbols; unknown and unscreenable ones are reported, not fatal.",
		lookup, objectOut("results", "summary"), d.scanPortfolio)}
}

type portfolioArgs struct {
	Symbols      []string `json:"symbols" schema:"required,minItems=1,maxItems=100"`
	ForceRefresh bool     `json:"force_refresh" schema:"default=false"`
}

func (d Deps) scanPortfolio(ctx context.Context, in portfolioArgs) (any, string, error) {
	items, sum, err := d.scan(ctx, in.Symbols)
	if err != nil {
		return nil, "", err
	}
	out := map[string]any{"results": screening.PortfolioResults(items), "summary": sum, "force_refresh_applied": false}
	if d.Education != nil {
		out["disclaimers"] = d.Education.DisclaimersFor("screening", "purification")
	}
	return out, renderPortfolio(items, sum), nil
}

// scan screens 1 to 100 symbols. force_refresh is honoured, as on REST, only for enterprise and internal
// keys: never over MCP.
func (d Deps) scan(ctx context.Context, syms []string) ([]screening.PortfolioItem, screening.PortfolioSummary, error) {
	if len(syms) == 0 || len(syms) > 100 {
		return nil, screening.PortfolioSummary{}, invalid("give 1 to 100 symbols", "symbols")
	}
	items, err := d.Screener.ScanPortfolio(ctx, d.Catalogs, syms, screening.ScreenOptions{})
	return items, screening.SummarizePortfolio(items), err
}

func renderPortfolio(items []screening.PortfolioItem, s screening.PortfolioSummary) string {
	var lines []string
	for _, it := range items {
		line := it.Symbol + ": " + it.Status
		if it.Result != nil {
			line += screening.MarksOf(*it.Result).Suffix()
		}
		if it.ErrorMessage != "" {
			line += " (" + it.ErrorMessage + ")"
		}
		lines = append(lines, line)
	}
	return fmt.Sprintf("%d symbols, %d compliant (%s%% of those with a verdict). Fundamentals of the screened symbols: %s (companies: %s).\n%s",
		s.Total, s.Compliant, s.ComplianceRatePct.StringFixed(2), s.DataSources, s.CompanyDataSources, strings.Join(lines, "\n"))
}
