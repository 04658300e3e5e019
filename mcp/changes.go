package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/shariah-screen/shariah/screening"
)

// changeTools is the verdict change feed (GET /api/changes).
func (d Deps) changeTools() []tool {
	return []tool{newTool("get_verdict_changes", "Verdict changes recorded after a cursor, oldest first: a stored screening replaced by one whose "+
		"overall verdict, a methodology's verdict or data source (illustrative, filed) differs, with before and after, the ratios that "+
		"crossed a threshold (values before and after) and the cause (bulk run, filing). Filter by symbols, one of your watchlists or an "+
		"index (their union). Pass next_cursor back as since to read on; an expired cursor (older than the log keeps) is CURSOR_EXPIRED.",
		lookup, objectOut("changes", "next_cursor", "has_more"), d.getVerdictChanges)}
}

type changesArgs struct {
	Since     string   `json:"since" jsonschema:"A change's id or a next_cursor (e.g. 1764230400000-0); absent or 0: from the oldest change kept."`
	Symbols   []string `json:"symbols" jsonschema:"Only changes of these tickers." schema:"maxItems=200"`
	Watchlist string   `json:"watchlist" jsonschema:"Only changes of the symbols of one of your watchlists (manage_watchlist)."`
	Index     string   `json:"index" jsonschema:"Only changes of an index's constituents (bulk_screen list_indices: SP500, DJIA, ...)."`
	Limit     int      `json:"limit" schema:"minimum=1,maximum=500,default=100"`
}

// getVerdictChanges answers what GET /api/changes answers (screening.ChangeFeed.Changes).
func (d Deps) getVerdictChanges(ctx context.Context, in changesArgs) (any, string, error) {
	p, err := d.Changes.Changes(ctx, screening.ChangeQuery{Since: in.Since, Symbols: in.Symbols, WatchlistID: in.Watchlist,
		Index: in.Index, UserID: userOf(ctx), Limit: in.Limit})
	if err != nil {
		return nil, "", err
	}
	lines := []string{fmt.Sprintf("%d changes; next_cursor %s%s.", len(p.Changes), p.NextCursor, map[bool]string{true: " (more follow)"}[p.HasMore])}
	for _, c := range p.Changes {
		lines = append(lines, fmt.Sprintf("%s %s %s (%s): %s -> %s, %s -> %s [%s].", c.At.Format("2006-01-02T15:04:05Z"), c.Symbol, c.Ruleset,
			strings.Join(c.Kinds, ", "), c.Before.ComplianceStatus, c.After.ComplianceStatus, c.Before.DataSource, c.After.DataSource, c.Cause.Kind))
	}
	return p, strings.Join(lines, "\n"), nil
}
