// Package bulk holds bulk screening runs: a run of an index's constituents through the screener
// (bulk.go), its stored state and who may read or manage it (run.go), the takeover of a stalled run by
// another worker (takeover.go), the listed items (items.go) and a run's summary and comparison with the
// previous one (summary.go). It imports the kernel and the screening.
package bulk

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/screening"
)

// Queue hands runs to the workers (asynq: one task per run, the task id is the run id).
type Queue interface {
	EnqueueRun(ctx context.Context, runID string) error
	// DropRun removes a run's task if it is still waiting.
	DropRun(ctx context.Context, runID string) error
}

// Reader is what bulk runs read of the reference store: the indices (to list an index's constituents)
// and a symbol's record.
type Reader interface {
	catalog.IndexSource
	Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error)
}

// Bulk creates, runs, cancels and deletes bulk screening runs. The API and the cron rescreens create
// runs through it, and the workers execute them through it.
type Service struct {
	Runs        Store
	Ref         Reader
	Screener    *screening.Screener
	Queue       Queue
	Concurrency int           // symbols screened at once within a run; 0: 4
	Pause       time.Duration // after each symbol (spreads a run's load); 0: none
	Now         func() time.Time
	// Lease is how long a worker's claim on a run lasts without a heartbeat (0: DefaultLease); the
	// worker renews it every Lease/5. StallAfter without a heartbeat, a running run reads as stalled
	// (0: DefaultStallAfter); at Lease another worker's reclaim loop takes it over (takeover.go).
	Lease      time.Duration
	StallAfter time.Duration
	// Unavailable reports a store error that passes (Redis unreachable, or a Redis Cluster failing
	// over): a symbol whose screening fails so is not recorded as an error but left for the run's
	// next attempt. nil: every failed screening is the symbol's outcome.
	Unavailable func(error) bool
}

func (b *Service) now() time.Time {
	if b.Now != nil {
		return b.Now().UTC()
	}
	return time.Now().UTC()
}

// Indices lists the known indices and any a data pack defined, with their loaded constituents.
func (b *Service) Indices(ctx context.Context) ([]catalog.IndexListing, map[string][]string, error) {
	return catalog.ListIndices(ctx, b.Ref)
}

// StartRun validates and queues a run of an index for the caller, who owns it (the service owns
// runs started by ServiceCaller: the scheduled rescreens). An unknown index is EINVALID naming the
// valid ones; an index with a run already active is ECONFLICT (naming the active run when the caller
// may read it).
func (b *Service) StartRun(ctx context.Context, by shariah.Caller, index string, limit int, force bool, ruleset, trigger string) (Run, error) {
	index = catalog.NormalizeIndexName(index)
	listing, members, err := b.Indices(ctx)
	if err != nil {
		return Run{}, err
	}
	if !slices.ContainsFunc(listing, func(l catalog.IndexListing) bool { return l.Name == index }) {
		return Run{}, &shariah.Error{Code: shariah.EINVALID, Message: fmt.Sprintf("Unknown index %q.", index),
			Detail: map[string]any{"errors": []shariah.FieldError{{Loc: []any{"body", "index_name"}, Msg: catalog.UnknownIndexMessage(listing), Type: "value_error.index"}}}}
	}
	syms := members[index]
	if len(syms) == 0 {
		return Run{}, &shariah.Error{Code: shariah.EINVALID, Message: fmt.Sprintf("Index %s has no constituents in the loaded data.", index),
			Detail: map[string]any{"errors": []shariah.FieldError{{Loc: []any{"body", "index_name"}, Msg: "no constituents loaded for this index", Type: "value_error.index"}}}}
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
	r := Run{ID: uuid.Must(uuid.NewV7()).String(), IndexName: index, Status: Queued, Ruleset: rs.Name, Limit: limit,
		ForceRefresh: force, Trigger: trigger, Total: len(syms), CreatedAt: now, UpdatedAt: now, Owner: by.UserID}
	if holder, ok, err := b.Runs.ClaimIndex(ctx, index, r.ID, 6*time.Hour); err != nil {
		return Run{}, err
	} else if !ok {
		e := &shariah.Error{Code: shariah.ECONFLICT, Message: fmt.Sprintf("A run of %s is already active.", index)}
		if h, err := b.Get(ctx, by, holder); err == nil {
			e.Detail = map[string]any{"run_id": h.ID}
		}
		return Run{}, e
	}
	if prev, _, err := b.Runs.Runs(ctx, Filter{IndexName: index, Status: Completed}, 0, 1); err == nil && len(prev) > 0 {
		r.PreviousRunID = prev[0].ID
	}
	if err := b.Runs.CreateRun(ctx, r, syms); err != nil {
		_ = b.Runs.ReleaseIndex(ctx, index, r.ID)
		return Run{}, err
	}
	if err := b.Queue.EnqueueRun(ctx, r.ID); err != nil {
		_, _ = b.Runs.SetStatus(ctx, r.ID, Failed, []string{Queued}, b.now(), "could not queue: "+err.Error())
		_ = b.Runs.ReleaseIndex(ctx, index, r.ID)
		return Run{}, err
	}
	return b.view(r), nil
}

// view is a run as callers read it: scheduled runs stored before runs had owners belong to the
// service, and a running run whose worker has not heartbeaten for StallAfter reads as stalled.
func (b *Service) view(r Run) Run {
	if r.Owner == "" && r.Trigger == "schedule" {
		r.Owner = shariah.ServiceOwner
	}
	r.Scheduled = r.Owner == shariah.ServiceOwner
	if r.Status == Running && r.LeaseLeft < b.lease()-b.stallAfter() {
		r.Status = Stalled
	}
	return r
}

// Get reads a run the caller may read; any other run is ENOTFOUND, as an unknown one is.
func (b *Service) Get(ctx context.Context, by shariah.Caller, id string) (Run, error) {
	r, ok, err := b.Runs.Run(ctx, id)
	if err != nil {
		return Run{}, err
	}
	if r = b.view(r); !ok || !r.ReadableBy(by) {
		return Run{}, shariah.Errorf(shariah.ENOTFOUND, "No run %q.", id)
	}
	return r, nil
}

// Items reads the results of a run the caller may read (ENOTFOUND otherwise).
func (b *Service) Items(ctx context.Context, by shariah.Caller, id string) (Run, []Item, error) {
	r, err := b.Get(ctx, by, id)
	if err != nil {
		return Run{}, nil, err
	}
	items, err := b.Runs.Items(ctx, id)
	return r, items, err
}

// History lists the runs the caller may read (its own and the scheduled ones; operators: all), newest
// first, filtered (status may be stalled), with the total before paging.
func (b *Service) History(ctx context.Context, by shariah.Caller, f Filter, offset, limit int) ([]Run, int, error) {
	stored := f
	if f.Status == Stalled {
		stored.Status = Running
	}
	all, _, err := b.Runs.Runs(ctx, stored, 0, math.MaxInt)
	if err != nil {
		return nil, 0, err
	}
	var out []Run
	for _, r := range all {
		if r = b.view(r); r.ReadableBy(by) && (f.Status == "" || r.Status == f.Status) {
			out = append(out, r)
		}
	}
	total := len(out)
	if offset >= total {
		return []Run{}, total, nil
	}
	if limit < total-offset {
		return out[offset : offset+limit], total, nil
	}
	return out[offset:], total, nil
}

// Current returns the caller's active run (the latest queued, running or stalled one it may read) or
// else the most recent one it may read.
func (b *Service) Current(ctx context.Context, by shariah.Caller) (Run, error) {
	rs, _, err := b.History(ctx, by, Filter{}, 0, math.MaxInt)
	if err != nil {
		return Run{}, err
	}
	for _, r := range rs {
		if !r.Finished() {
			return r, nil
		}
	}
	if len(rs) == 0 {
		return Run{}, shariah.Errorf(shariah.ENOTFOUND, "No bulk run yet: POST /api/screen-bulk starts one.")
	}
	return rs[0], nil
}

// manageable reads a run the caller may cancel or delete: another account's run is ENOTFOUND; a
// scheduled run, which every key may read, is EFORBIDDEN to all but operators.
func (b *Service) manageable(ctx context.Context, by shariah.Caller, id string) (Run, error) {
	r, err := b.Get(ctx, by, id)
	if err != nil {
		return Run{}, err
	}
	if !r.ManageableBy(by) {
		return Run{}, shariah.Errorf(shariah.EFORBIDDEN, "Run %s is a scheduled rescreen: only operators can cancel or delete it.", id)
	}
	return r, nil
}

// Cancel stops a queued, running or stalled run; what it collected is kept. A finished run is EINVALID.
func (b *Service) Cancel(ctx context.Context, by shariah.Caller, id string) (Run, error) {
	r, err := b.manageable(ctx, by, id)
	if err != nil {
		return Run{}, err
	}
	ok, err := b.Runs.SetStatus(ctx, id, Cancelled, []string{Queued, Running}, b.now(), "")
	if err != nil {
		return Run{}, err
	}
	if !ok {
		return Run{}, shariah.Errorf(shariah.EINVALID, "Run %s is already %s; only queued or running runs can be cancelled.", id, r.Status)
	}
	_ = b.Queue.DropRun(ctx, id)
	_ = b.Runs.ReleaseIndex(ctx, r.IndexName, id)
	return b.Get(ctx, by, id)
}

// Delete removes a completed, cancelled or failed run and every key of it (its queue task too). A
// queued, running or stalled run is ECONFLICT naming its state: cancel it first.
func (b *Service) Delete(ctx context.Context, by shariah.Caller, id string) error {
	r, err := b.manageable(ctx, by, id)
	if err != nil {
		return err
	}
	if !r.Finished() {
		return &shariah.Error{Code: shariah.ECONFLICT, Message: fmt.Sprintf("Run %s is %s; only completed, cancelled or failed runs can be deleted (cancel it first).", id, r.Status),
			Detail: map[string]any{"run_id": id, "status": r.Status}}
	}
	// A finished run's task is done, or at worst still returning from its last symbol; a task left
	// active deletes itself when it returns (runs keep no finished tasks).
	_ = b.Queue.DropRun(ctx, id)
	_ = b.Runs.ReleaseIndex(ctx, r.IndexName, id)
	return b.Runs.DeleteRun(ctx, id)
}

// execute runs a queued (or interrupted) run to its end under the caller's lease (Execute): it screens
// the constituents not screened yet with bounded concurrency, writing each outcome once and the
// progress as it goes, stops between symbols when the run is cancelled or deleted, and records
// per-symbol errors without failing the run. It is idempotent: a run resumed after a crash skips what
// is already written. A store that fails under it (an outcome not written, the run not readable, a
// screening that failed because Redis was unavailable) ends the attempt with that error before the run
// is completed: the task is retried and resumes with the symbols still missing.
func (b *Service) execute(ctx context.Context, r Run) error {
	id := r.ID
	if _, err := b.Runs.SetStatus(ctx, id, Running, []string{Queued, Running}, b.now(), ""); err != nil {
		return err
	}
	todo, done, err := b.pending(ctx, id)
	if err != nil {
		return err
	}
	stopped, err := b.screenAll(ctx, r, todo, done, b.previousStatuses(ctx, r))
	if err != nil && ctx.Err() == nil {
		return err
	}
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
		if _, err := b.Runs.SetStatus(ctx, id, Completed, []string{Running}, b.now(), ""); err != nil {
			return err
		}
	}
	return b.Runs.ReleaseIndex(ctx, r.IndexName, id)
}

// pending lists a run's symbols not yet screened (a resumed run carries on where it stopped) and
// counts those done.
func (b *Service) pending(ctx context.Context, id string) (todo []string, done int, err error) {
	syms, err := b.Runs.RunSymbols(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	doneSet, err := b.Runs.DoneSymbols(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	for _, s := range syms {
		if !doneSet[s] {
			todo = append(todo, s)
		}
	}
	return todo, len(doneSet), nil
}

// previousStatuses are the statuses of the previous run of the index, by symbol (empty when there is
// none or it cannot be read), for each item's status change.
func (b *Service) previousStatuses(ctx context.Context, r Run) map[string]string {
	previous := map[string]string{}
	if r.PreviousRunID != "" {
		if items, err := b.Runs.Items(ctx, r.PreviousRunID); err == nil {
			for _, it := range items {
				previous[it.Symbol] = it.Status
			}
		}
	}
	return previous
}

// screenAll screens the symbols with Concurrency workers, storing each item and the progress; between
// symbols it checks the run is still running, and reports whether it stopped early (cancelled, deleted
// or shut down) and the first store failure that left a symbol without its outcome (the symbols after
// it are not started).
func (b *Service) screenAll(ctx context.Context, r Run, todo []string, done int, previous map[string]string) (stopped bool, failed error) {
	var mu sync.Mutex
	processed, errs := done, 0
	fail := func(err error) {
		mu.Lock()
		if failed == nil {
			failed = err
		}
		mu.Unlock()
	}
	hasFailed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failed != nil
	}
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
				it, err := b.screenOne(ctx, r, sym, previous)
				if err == nil {
					_, err = b.Runs.PutItem(ctx, r.ID, it)
				}
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				processed++
				if it.HasError {
					errs++
				}
				p, e := processed, errs
				mu.Unlock()
				_ = b.Runs.SetProgress(ctx, r.ID, sym, p, e, b.now())
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
		if hasFailed() {
			break
		}
		if i%workers == 0 { // between symbols: has the run been cancelled or deleted?
			cur, ok, err := b.Runs.Run(ctx, r.ID)
			if err != nil && ctx.Err() == nil {
				fail(err)
				break
			}
			if !ok || cur.Status != Running || ctx.Err() != nil {
				stopped = true
				break
			}
		}
		ch <- sym
	}
	close(ch)
	wg.Wait()
	return stopped, failed
}

// passing reports a store failure that passes (Unavailable).
func (b *Service) passing(err error) bool {
	return err != nil && b.Unavailable != nil && b.Unavailable(err)
}

// screenOne screens one symbol of a run into its outcome; err is not nil when the screening failed
// because a store was unavailable (Unavailable): that is no outcome of the symbol's.
func (b *Service) screenOne(ctx context.Context, r Run, sym string, previous map[string]string) (Item, error) {
	it := Item{Symbol: sym}
	res, _, err := b.Screener.Screen(ctx, sym, screening.ScreenOptions{Ruleset: r.Ruleset, ForceRefresh: r.ForceRefresh, RunID: r.ID})
	if b.passing(err) {
		return it, err
	}
	a, found, aerr := b.Ref.Asset(ctx, sym)
	if b.passing(aerr) {
		return it, aerr
	}
	if err != nil {
		it.HasError, it.Status = true, "ERROR"
		if e, ok := err.(*shariah.Error); ok && e.Code != shariah.EINTERNAL {
			it.Error = e.Message
		} else {
			it.Error = "screening failed"
		}
		if found {
			it.Name, it.Sector = a.Name, a.Sector
		}
	} else {
		it.Name, it.Status, it.IsCompliant, it.Result = res.Name, res.ComplianceStatus, res.IsCompliant, &res
		if found {
			it.Sector = a.Sector
		}
	}
	if prev, ok := previous[sym]; ok {
		it.PreviousStatus = prev
		it.StatusChanged = prev != it.Status
	}
	return it, nil
}
