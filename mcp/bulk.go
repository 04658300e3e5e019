package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
)

func (d Deps) bulkTools() []tool {
	return []tool{newTool("bulk_screen", "Bulk screening of whole indices (asynchronous runs): list_indices, trigger (index_name), status (run_id or the current run), "+
		"list_runs, results (run_id; compliant, methodology, sector, page_size), summary, cancel, compare (run_id \"id1,id2\").",
		hints{}, objectOut("action"), d.bulkScreen)}
}

type bulkArgs struct {
	Action      string `json:"action" schema:"required,enum=trigger|status|list_runs|results|summary|cancel|compare|list_indices"`
	IndexName   string `json:"index_name"`
	RunID       string `json:"run_id"`
	Compliant   *bool  `json:"compliant"`
	Methodology string `json:"methodology"`
	Sector      string `json:"sector"`
	PageSize    int    `json:"page_size" schema:"minimum=1,maximum=500,default=50"`
}

// bulkCall is one bulk_screen call: its arguments, caller and result so far.
type bulkCall struct {
	in  bulkArgs
	by  shariah.Caller
	out map[string]any
}

// bulkActions are the bulk_screen actions.
var bulkActions = map[string]func(d Deps, ctx context.Context, c bulkCall) (string, error){
	"list_indices": Deps.bulkIndices,
	"trigger":      Deps.bulkTrigger,
	"status":       Deps.bulkStatus,
	"cancel":       Deps.bulkStatus,
	"list_runs":    Deps.bulkRuns,
	"results":      Deps.bulkResults,
	"summary":      Deps.bulkResults,
	"compare":      Deps.bulkCompare,
}

func (d Deps) bulkScreen(ctx context.Context, in bulkArgs) (any, string, error) {
	if in.PageSize < 1 || in.PageSize > 500 {
		return nil, "", invalid("must be 1 to 500", "page_size")
	}
	by, err := d.bulkCaller(ctx)
	if err != nil {
		return nil, "", err
	}
	act, ok := bulkActions[in.Action]
	if !ok {
		return nil, "", invalid("unknown action", "action")
	}
	c := bulkCall{in: in, by: by, out: map[string]any{"action": in.Action}}
	text, err := act(d, ctx, c)
	if err != nil {
		return nil, "", err
	}
	return c.out, text, nil
}

// run is the run the call names (for status without run_id: the current run).
func (d Deps) run(ctx context.Context, c bulkCall) (bulk.Run, error) {
	if c.in.RunID == "" {
		if c.in.Action == "status" {
			return d.Bulk.Current(ctx, c.by)
		}
		return bulk.Run{}, invalid("run_id is required for "+c.in.Action, "run_id")
	}
	return d.Bulk.Get(ctx, c.by, c.in.RunID)
}

func (d Deps) bulkIndices(ctx context.Context, c bulkCall) (string, error) {
	list, _, err := d.Bulk.Indices(ctx)
	if err != nil {
		return "", err
	}
	c.out["indices"] = list
	var names []string
	for _, ix := range list {
		names = append(names, ix.Name)
	}
	return fmt.Sprintf("%d indices: %s", len(list), strings.Join(names, ", ")), nil
}

func (d Deps) bulkTrigger(ctx context.Context, c bulkCall) (string, error) {
	if c.in.IndexName == "" {
		return "", invalid("index_name is required to trigger a run", "index_name")
	}
	r, err := d.Bulk.StartRun(ctx, c.by, strings.ToUpper(strings.TrimSpace(c.in.IndexName)), 0, false, "", "mcp")
	if err != nil {
		return "", err
	}
	c.out["run"] = r
	return fmt.Sprintf("Run %s of %s queued (%d symbols); follow it with action status.", r.ID, r.IndexName, r.Total), nil
}

// bulkStatus is the status of a run, after cancelling it for action cancel.
func (d Deps) bulkStatus(ctx context.Context, c bulkCall) (string, error) {
	r, err := d.run(ctx, c)
	if err != nil {
		return "", err
	}
	if c.in.Action == "cancel" {
		if r, err = d.Bulk.Cancel(ctx, c.by, r.ID); err != nil {
			return "", err
		}
	}
	c.out["run"] = r
	return fmt.Sprintf("Run %s of %s: %s, %d of %d processed.", r.ID, r.IndexName, r.Status, r.Processed, r.Total), nil
}

func (d Deps) bulkRuns(ctx context.Context, c bulkCall) (string, error) {
	rs, total, err := d.Bulk.History(ctx, c.by, bulk.Filter{IndexName: strings.ToUpper(c.in.IndexName)}, 0, c.in.PageSize)
	if err != nil {
		return "", err
	}
	c.out["runs"], c.out["total"] = rs, total
	return fmt.Sprintf("%d runs.", total), nil
}

// bulkResults is a run's results (filtered, first page), or their summary for action summary.
func (d Deps) bulkResults(ctx context.Context, c bulkCall) (string, error) {
	r, err := d.run(ctx, c)
	if err != nil {
		return "", err
	}
	_, items, err := d.Bulk.Items(ctx, c.by, r.ID)
	if err != nil {
		return "", err
	}
	c.out["run"] = r
	if c.in.Action == "summary" {
		var cat *catalog.Catalog
		if d.Catalogs != nil {
			if cat, err = d.Catalogs.Get(ctx); err != nil {
				return "", err
			}
		}
		s := bulk.Summarize(items, cat)
		c.out["summary"] = s
		b, _ := json.Marshal(s)
		return string(b), nil
	}
	rows, total := bulk.QueryItems(items, bulk.ItemQuery{Compliant: c.in.Compliant, Methodology: c.in.Methodology, Sector: c.in.Sector,
		SortBy: "symbol", Page: 1, PageSize: c.in.PageSize})
	c.out["results"], c.out["total"] = rows, total
	var lines []string
	for _, row := range rows {
		lines = append(lines, row.Symbol+": "+row.Status)
	}
	return fmt.Sprintf("%d results.\n%s", total, strings.Join(lines, "\n")), nil
}

func (d Deps) bulkCompare(ctx context.Context, c bulkCall) (string, error) {
	a, b, ok := strings.Cut(c.in.RunID, ",")
	if !ok {
		return "", invalid(`compare takes run_id "id1,id2"`, "run_id")
	}
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	_, ia, err := d.Bulk.Items(ctx, c.by, a)
	if err != nil {
		return "", err
	}
	_, ib, err := d.Bulk.Items(ctx, c.by, b)
	if err != nil {
		return "", err
	}
	cmp := bulk.CompareRuns(a, b, ia, ib)
	c.out["comparison"] = cmp
	return fmt.Sprintf("%d status changes between the runs.", len(cmp.Changed)), nil
}

// bulkCaller is who acts on runs through the bulk tool: the account of the session's key (an operator
// for a key of the internal plan), else the local user, as the watchlists are.
func (d Deps) bulkCaller(ctx context.Context) (shariah.Caller, error) {
	by := shariah.Caller{UserID: userOf(ctx)}
	if k, ok := ctx.Value(keyCtx{}).(keyInfo); ok && d.Auth != nil && d.Auth.Keys != nil {
		rec, err := d.Auth.Keys.KeyByHash(ctx, k.hash)
		if err != nil {
			return shariah.Caller{}, err
		}
		by = account.CallerOf(rec)
	}
	return by, nil
}
