package shariah

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// RunQueue hands runs to the workers (asynq: one task per run, the task id is the run id).
type RunQueue interface {
	EnqueueRun(ctx context.Context, runID string) error
	// DropRun removes a run's task if it is still waiting.
	DropRun(ctx context.Context, runID string) error
}

// Bulk creates, runs, cancels and deletes bulk screening runs. The API and the cron rescreens create
// runs through it, and the workers execute them through it.
type Bulk struct {
	Runs        RunStore
	Ref         RefStore
	Screener    *Screener
	Queue       RunQueue
	Concurrency int           // symbols screened at once within a run; 0: 4
	Pause       time.Duration // after each symbol (spreads a run's load); 0: none
	Now         func() time.Time
}

func (b *Bulk) now() time.Time {
	if b.Now != nil {
		return b.Now().UTC()
	}
	return time.Now().UTC()
}

// IndexListing is one index of GET /api/screen-bulk/indices.
type IndexListing struct {
	Name string `json:"index_name"`
	// DisplayName repeats index_name as "name", the field the ecosystem's clients read.
	DisplayName      string `json:"name"`
	Description      string `json:"description"`
	Country          string `json:"country"`
	EstimatedTickers int    `json:"estimated_tickers"`
	LoadedTickers    int    `json:"loaded_tickers"` // constituents in the loaded data (what a run screens)
	Source           string `json:"source,omitempty"`
}

// Indices lists the known indices and any a data pack defined, with their loaded constituents.
func (b *Bulk) Indices(ctx context.Context) ([]IndexListing, map[string][]string, error) {
	stored, err := b.Ref.Indices(ctx)
	if err != nil {
		return nil, nil, err
	}
	members := map[string][]string{}
	byName := map[string]IndexInfo{}
	for _, ix := range stored {
		members[ix.Name] = ix.Symbols
		byName[ix.Name] = ix
	}
	var out []IndexListing
	seen := map[string]bool{}
	for _, k := range KnownIndices {
		seen[k.Name] = true
		l := IndexListing{Name: k.Name, DisplayName: k.Name, Description: k.Description, Country: k.Country, EstimatedTickers: k.Estimated, LoadedTickers: len(members[k.Name])}
		if ix, ok := byName[k.Name]; ok {
			l.Source = ix.Source
		}
		out = append(out, l)
	}
	var extra []string
	for name := range byName {
		if !seen[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		ix := byName[name]
		out = append(out, IndexListing{Name: name, DisplayName: name, Description: ix.Description, Country: ix.Country, EstimatedTickers: len(ix.Symbols),
			LoadedTickers: len(ix.Symbols), Source: ix.Source})
	}
	return out, members, nil
}

// StartRun validates and queues a run of an index: an unknown index is EINVALID naming the valid
// ones; an index with a run already active is ECONFLICT naming it.
func (b *Bulk) StartRun(ctx context.Context, index string, limit int, force bool, ruleset, trigger string) (Run, error) {
	index = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(index), " ", ""))
	listing, members, err := b.Indices(ctx)
	if err != nil {
		return Run{}, err
	}
	var names []string
	found := false
	for _, l := range listing {
		names = append(names, l.Name)
		found = found || l.Name == index
	}
	if !found {
		return Run{}, &Error{Code: EINVALID, Message: fmt.Sprintf("Unknown index %q.", index),
			Detail: map[string]any{"errors": []FieldError{{Loc: []any{"body", "index_name"}, Msg: "unknown index; valid: " + strings.Join(names, ", "), Type: "value_error.index"}}}}
	}
	syms := members[index]
	if len(syms) == 0 {
		return Run{}, &Error{Code: EINVALID, Message: fmt.Sprintf("Index %s has no constituents in the loaded data.", index),
			Detail: map[string]any{"errors": []FieldError{{Loc: []any{"body", "index_name"}, Msg: "no constituents loaded for this index", Type: "value_error.index"}}}}
	}
	syms = append([]string(nil), syms...)
	sort.Strings(syms)
	if limit > 0 && limit < len(syms) {
		syms = syms[:limit]
	}
	rs, _, err := b.Screener.Rulesets.Resolve(ruleset, "")
	if err != nil {
		return Run{}, err
	}
	now := b.now()
	r := Run{ID: uuid.Must(uuid.NewV7()).String(), IndexName: index, Status: RunQueued, Ruleset: rs.Name, Limit: limit,
		ForceRefresh: force, Trigger: trigger, Total: len(syms), CreatedAt: now, UpdatedAt: now}
	if holder, ok, err := b.Runs.ClaimIndex(ctx, index, r.ID, 6*time.Hour); err != nil {
		return Run{}, err
	} else if !ok {
		return Run{}, &Error{Code: ECONFLICT, Message: fmt.Sprintf("A run of %s is already active.", index), Detail: map[string]any{"run_id": holder}}
	}
	if prev, _, err := b.Runs.Runs(ctx, RunFilter{IndexName: index, Status: RunCompleted}, 0, 1); err == nil && len(prev) > 0 {
		r.PreviousRunID = prev[0].ID
	}
	if err := b.Runs.CreateRun(ctx, r, syms); err != nil {
		_ = b.Runs.ReleaseIndex(ctx, index, r.ID)
		return Run{}, err
	}
	if err := b.Queue.EnqueueRun(ctx, r.ID); err != nil {
		_, _ = b.Runs.SetStatus(ctx, r.ID, RunFailed, []string{RunQueued}, b.now(), "could not queue: "+err.Error())
		_ = b.Runs.ReleaseIndex(ctx, index, r.ID)
		return Run{}, err
	}
	return r, nil
}

// Get reads a run or ENOTFOUND.
func (b *Bulk) Get(ctx context.Context, id string) (Run, error) {
	r, ok, err := b.Runs.Run(ctx, id)
	if err != nil {
		return Run{}, err
	}
	if !ok {
		return Run{}, Errorf(ENOTFOUND, "No run %q.", id)
	}
	return r, nil
}

// Current returns the active run (the latest queued or running one) or else the most recent run.
func (b *Bulk) Current(ctx context.Context) (Run, error) {
	for _, st := range []string{RunRunning, RunQueued} {
		rs, _, err := b.Runs.Runs(ctx, RunFilter{Status: st}, 0, 1)
		if err != nil {
			return Run{}, err
		}
		if len(rs) > 0 {
			return rs[0], nil
		}
	}
	rs, _, err := b.Runs.Runs(ctx, RunFilter{}, 0, 1)
	if err != nil {
		return Run{}, err
	}
	if len(rs) == 0 {
		return Run{}, Errorf(ENOTFOUND, "No bulk run yet: POST /api/screen-bulk starts one.")
	}
	return rs[0], nil
}

// Cancel stops a queued or running run; what it collected is kept. A finished run is EINVALID.
func (b *Bulk) Cancel(ctx context.Context, id string) (Run, error) {
	r, err := b.Get(ctx, id)
	if err != nil {
		return Run{}, err
	}
	ok, err := b.Runs.SetStatus(ctx, id, RunCancelled, []string{RunQueued, RunRunning}, b.now(), "")
	if err != nil {
		return Run{}, err
	}
	if !ok {
		return Run{}, Errorf(EINVALID, "Run %s is already %s; only queued or running runs can be cancelled.", id, r.Status)
	}
	_ = b.Queue.DropRun(ctx, id)
	_ = b.Runs.ReleaseIndex(ctx, r.IndexName, id)
	return b.Get(ctx, id)
}

// Delete removes a run and all its results (cancelling it first if it is active).
func (b *Bulk) Delete(ctx context.Context, id string) error {
	r, err := b.Get(ctx, id)
	if err != nil {
		return err
	}
	if !r.Finished() {
		_, _ = b.Runs.SetStatus(ctx, id, RunCancelled, []string{RunQueued, RunRunning}, b.now(), "deleted")
		_ = b.Queue.DropRun(ctx, id)
		_ = b.Runs.ReleaseIndex(ctx, r.IndexName, id)
	}
	return b.Runs.DeleteRun(ctx, id)
}

// Execute runs a queued (or interrupted) run to its end: it screens the constituents not screened yet
// with bounded concurrency, writing each outcome once and the progress as it goes, stops between
// symbols when the run is cancelled or deleted, and records per-symbol errors without failing the run.
// It is idempotent: a run resumed after a crash skips what is already written.
func (b *Bulk) Execute(ctx context.Context, id string) error {
	r, ok, err := b.Runs.Run(ctx, id)
	if err != nil {
		return err
	}
	if !ok || r.Finished() {
		return nil // deleted, cancelled or already done: nothing to do
	}
	if _, err := b.Runs.SetStatus(ctx, id, RunRunning, []string{RunQueued, RunRunning}, b.now(), ""); err != nil {
		return err
	}
	syms, err := b.Runs.RunSymbols(ctx, id)
	if err != nil {
		return err
	}
	done, err := b.Runs.DoneSymbols(ctx, id)
	if err != nil {
		return err
	}
	previous := map[string]string{}
	if r.PreviousRunID != "" {
		if items, err := b.Runs.Items(ctx, r.PreviousRunID); err == nil {
			for _, it := range items {
				previous[it.Symbol] = it.Status
			}
		}
	}
	var todo []string
	for _, s := range syms {
		if !done[s] {
			todo = append(todo, s)
		}
	}
	var mu sync.Mutex
	processed, errs := len(done), 0
	stopped := false
	workers := b.Concurrency
	if workers <= 0 {
		workers = 4
	}
	ch := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sym := range ch {
				it := b.screenOne(ctx, r, sym, previous)
				if _, err := b.Runs.PutItem(ctx, id, it); err != nil {
					continue
				}
				mu.Lock()
				processed++
				if it.HasError {
					errs++
				}
				p, e := processed, errs
				mu.Unlock()
				_ = b.Runs.SetProgress(ctx, id, sym, p, e, b.now())
				if b.Pause > 0 {
					select {
					case <-ctx.Done():
					case <-time.After(b.Pause):
					}
				}
			}
		}()
	}
	for i, sym := range todo {
		if i%workers == 0 { // between symbols: has the run been cancelled or deleted?
			cur, ok, err := b.Runs.Run(ctx, id)
			if err != nil || !ok || cur.Status != RunRunning || ctx.Err() != nil {
				stopped = true
				break
			}
		}
		ch <- sym
	}
	close(ch)
	wg.Wait()
	// Progress writes from the workers may land out of order: write the final figures once.
	if items, err := b.Runs.Items(ctx, id); err == nil {
		n := 0
		for _, it := range items {
			if it.HasError {
				n++
			}
		}
		_ = b.Runs.SetProgress(ctx, id, "", len(items), n, b.now())
	}
	if ctx.Err() != nil {
		return ctx.Err() // shut down mid-run: the task is retried and resumes here
	}
	if !stopped {
		if _, err := b.Runs.SetStatus(ctx, id, RunCompleted, []string{RunRunning}, b.now(), ""); err != nil {
			return err
		}
	}
	return b.Runs.ReleaseIndex(ctx, r.IndexName, id)
}

func (b *Bulk) screenOne(ctx context.Context, r Run, sym string, previous map[string]string) RunItem {
	it := RunItem{Symbol: sym}
	res, _, err := b.Screener.Screen(ctx, sym, ScreenOptions{Ruleset: r.Ruleset, ForceRefresh: r.ForceRefresh, RunID: r.ID})
	if err != nil {
		it.HasError, it.Status = true, "ERROR"
		if e, ok := err.(*Error); ok && e.Code != EINTERNAL {
			it.Error = e.Message
		} else {
			it.Error = "screening failed"
		}
		if a, ok, _ := b.Ref.Asset(ctx, sym); ok {
			it.Name, it.Sector = a.Name, a.Sector
		}
	} else {
		it.Name, it.Status, it.IsCompliant, it.Result = res.Name, res.ComplianceStatus, res.IsCompliant, &res
		if a, ok, _ := b.Ref.Asset(ctx, sym); ok {
			it.Sector = a.Sector
		}
	}
	if prev, ok := previous[sym]; ok {
		it.PreviousStatus = prev
		it.StatusChanged = prev != it.Status
	}
	return it
}
