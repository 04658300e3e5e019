package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/shariah-screen/shariah/filings"
)

func (d Deps) filingsTools() []tool {
	return []tool{newTool("get_sec_filings", "SEC filings or XBRL facts of a US filer. Filings default to the periodic and current reports (10-K, 10-Q, 8-K, 20-F, 40-F, 6-K and amendments); filing_type narrows to one form or 'all' adds insider forms (3, 4, 5, 144).",
		lookup, objectOut("symbol"), d.getSECFilings)}
}

type filingsArgs struct {
	symbolArg
	DataType   string `json:"data_type" schema:"enum=filings|facts,default=filings"`
	FilingType string `json:"filing_type" jsonschema:"one form (its amendments included) or all; without it the periodic and current reports" schema:"enum=10-K|10-Q|8-K|20-F|40-F|6-K|all"`
	Concept    string `json:"concept" jsonschema:"XBRL concept for data_type facts (Assets or us-gaap:Assets)" schema:"maxLength=120"`
	Limit      int    `json:"limit" schema:"minimum=1,maximum=200,default=20"`
	Offset     int    `json:"offset" jsonschema:"matching filings to skip (newest first)" schema:"minimum=0,maximum=100000,default=0"`
}

func (d Deps) getSECFilings(ctx context.Context, in filingsArgs) (any, string, error) {
	a, err := d.resolve(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	if in.Limit < 1 || in.Limit > 200 {
		return nil, "", invalid("must be 1 to 200", "limit")
	}
	if in.Offset < 0 || in.Offset > 100000 {
		return nil, "", invalid("must be 0 to 100000", "offset")
	}
	ft, ok := filings.ParseFilingType(in.FilingType)
	if !ok {
		return nil, "", invalid(filings.TypeMessage, "filing_type")
	}
	if in.DataType == "facts" {
		all, err := d.Filings.Facts(ctx, a.Symbol)
		if err != nil {
			return nil, "", err
		}
		facts, total := filings.FilterFacts(all, in.Concept, in.Limit)
		return map[string]any{"symbol": a.Symbol, "facts": facts, "total": total}, fmt.Sprintf("%d XBRL facts on file for %s.", total, a.Symbol), nil
	}
	all, err := d.Filings.Filings(ctx, a.Symbol)
	if err != nil {
		return nil, "", err
	}
	out, total := filings.FilterFilings(all, ft, in.Limit, in.Offset)
	lines := []string{fmt.Sprintf("%d of %d matching filings.", len(out), total)}
	for _, f := range out {
		lines = append(lines, fmt.Sprintf("%s %s %s", f.FilingDate, f.Form, f.URL))
	}
	return map[string]any{"symbol": a.Symbol, "filings": out, "total": total, "limit": in.Limit, "offset": in.Offset}, strings.Join(lines, "\n"), nil
}
