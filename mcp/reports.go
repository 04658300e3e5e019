package mcp

import (
	"context"
	"strings"
	"time"

	"github.com/shariah-screen/shariah/screening"
)

func (d Deps) reportTools() []tool {
	return []tool{newTool("generate_report", "A screening report of a symbol (verdict, business activity, ratios, purification, data quality) or a portfolio report.",
		lookup, objectOut("report_type"), d.generateReport)}
}

type reportArgs struct {
	ReportType string `json:"report_type" schema:"required,enum=screening|portfolio"`
	optionalSymbol
	Symbols []string `json:"symbols" schema:"maxItems=100"`
}

func (d Deps) generateReport(ctx context.Context, in reportArgs) (any, string, error) {
	now := time.Now().UTC().Format(time.RFC3339)
	switch in.ReportType {
	case "screening":
		a, err := d.resolve(ctx, in.Symbol)
		if err != nil {
			return nil, "", err
		}
		r, _, err := d.Screener.Screen(ctx, a.Symbol, screening.ScreenOptions{})
		if err != nil {
			return nil, "", err
		}
		sections := screening.ReportSections(r)
		var lines []string
		for _, s := range sections {
			lines = append(lines, s.Title+": "+s.Body)
		}
		return map[string]any{"report_type": "screening", "generated_at": now, "symbol": r.Symbol, "name": r.Name,
			"summary": r.ComplianceExplanation, "sections": sections, "result": r, "disclaimers": r.Disclaimers}, strings.Join(lines, "\n"), nil
	case "portfolio":
		items, sum, err := d.scan(ctx, in.Symbols)
		if err != nil {
			return nil, "", err
		}
		out := map[string]any{"report_type": "portfolio", "generated_at": now, "holdings": items, "summary": sum}
		if d.Education != nil {
			out["disclaimers"] = d.Education.DisclaimersFor("screening", "purification")
		}
		return out, renderPortfolio(items, sum), nil
	}
	return nil, "", invalid("must be screening or portfolio", "report_type")
}
