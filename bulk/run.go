package bulk

import (
	"context"
	"time"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// Run states of a bulk screening run.
const (
	Queued    = "queued"
	Running   = "running"
	Completed = "completed"
	Cancelled = "cancelled"
	Failed    = "failed"
	// Stalled is how a running run reads while its worker has stopped heartbeating (crashed, frozen
	// or cut off): it is stored as running, stays cancellable and is not deletable; another worker takes
	// it over when the worker's lease expires (takeover.go).
	Stalled = "stalled"
)

// States are the states a run reads as, for filters and documentation.
var States = []string{Queued, Running, Stalled, Completed, Cancelled, Failed}

// Run is a bulk screening of an index.
type Run struct {
	ID            string     `json:"run_id"` // sortable (UUIDv7)
	IndexName     string     `json:"index_name"`
	Status        string     `json:"status"`
	Ruleset       string     `json:"ruleset"`
	Limit         int        `json:"limit"` // 0: every constituent
	ForceRefresh  bool       `json:"force_refresh"`
	Trigger       string     `json:"trigger"` // api, mcp or schedule
	Total         int        `json:"total"`
	Processed     int        `json:"processed"`
	Errors        int        `json:"errors"`
	CurrentSymbol string     `json:"current_symbol"`
	CreatedAt     time.Time  `json:"created_at"`
	StartedAt     *time.Time `json:"started_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
	FinishedAt    *time.Time `json:"finished_at"`
	Error         string     `json:"error,omitempty"`
	PreviousRunID string     `json:"previous_run_id,omitempty"` // the index's last completed run when this one was created
	// Scheduled is true for the service's rescreens (readable by every key).
	Scheduled bool `json:"scheduled"`
	// Owner is the user id of the account that started the run (ServiceOwner for rescreens; "" for runs
	// stored before runs had owners). It is not shown: user ids stay internal.
	Owner string `json:"-"`
	// LeaseLeft is what is left of the executing worker's lease, as read with the run (negative: no
	// worker holds it).
	LeaseLeft time.Duration `json:"-"`
}

// Finished reports whether the run can no longer change state.
func (r Run) Finished() bool {
	return r.Status == Completed || r.Status == Cancelled || r.Status == Failed
}

// Progress is the progress view of a run.
type Progress struct {
	Percent       string     `json:"percent"` // decimal string, two places
	Processed     int        `json:"processed"`
	Total         int        `json:"total"`
	CurrentSymbol string     `json:"current_symbol"`
	ETASeconds    *int64     `json:"eta_seconds"` // null until something is processed or when finished
	StartedAt     *time.Time `json:"started_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

// ProgressOf computes a run's progress view at now.
func ProgressOf(r Run, now time.Time) Progress {
	p := Progress{Percent: "0.00", Processed: r.Processed, Total: r.Total, CurrentSymbol: r.CurrentSymbol, StartedAt: r.StartedAt, UpdatedAt: r.UpdatedAt}
	if r.Total > 0 {
		p.Percent = market.RatioPercent(int64(r.Processed), int64(r.Total))
	}
	if r.Status == Running && r.StartedAt != nil && r.Processed > 0 && r.Processed < r.Total {
		per := now.Sub(*r.StartedAt) / time.Duration(r.Processed)
		eta := int64((per * time.Duration(r.Total-r.Processed)).Seconds() + 0.5)
		p.ETASeconds = &eta
	}
	if r.Finished() {
		zero := int64(0)
		p.ETASeconds = &zero
	}
	return p
}

// Item is one symbol of a run.
type Item struct {
	Symbol         string            `json:"symbol"`
	Name           string            `json:"name"`
	Sector         string            `json:"sector"`
	Status         string            `json:"status"` // the overall compliance status, or ERROR
	IsCompliant    *bool             `json:"is_compliant"`
	HasError       bool              `json:"has_error"`
	Error          string            `json:"error,omitempty"`
	PreviousStatus string            `json:"previous_status,omitempty"` // in the index's previous completed run
	StatusChanged  bool              `json:"status_changed"`
	Result         *screening.Result `json:"result,omitempty"` // the full screening result (null on error)
}

// Filter selects runs for the history.
type Filter struct {
	IndexName string
	Status    string
	Since     time.Time // created at or after (zero: any time)
}

// Store holds bulk runs, their constituents and their per-symbol results.
type Store interface {
	CreateRun(ctx context.Context, r Run, symbols []string) error
	Run(ctx context.Context, id string) (Run, bool, error)
	// SetStatus moves a run to status if its current status is one of from; it reports whether it did.
	SetStatus(ctx context.Context, id, status string, from []string, at time.Time, errMsg string) (bool, error)
	// SetProgress records the current symbol and counts (never the status) of an existing run.
	SetProgress(ctx context.Context, id, current string, processed, errors int, at time.Time) error
	RunSymbols(ctx context.Context, id string) ([]string, error)
	// PutItem stores a symbol's outcome once: a second write of the same symbol is ignored (false), and
	// so is a write to a deleted run (nothing of it is recreated).
	PutItem(ctx context.Context, id string, it Item) (bool, error)
	Items(ctx context.Context, id string) ([]Item, error)
	DoneSymbols(ctx context.Context, id string) (map[string]bool, error)
	// Runs lists runs newest first, filtered, with the total before paging.
	Runs(ctx context.Context, f Filter, offset, limit int) ([]Run, int, error)
	// DeleteRun removes every key of the run: record, constituents, results, lease and history entry.
	DeleteRun(ctx context.Context, id string) error
	// ClaimIndex marks runID as the index's active run unless another is; ReleaseIndex frees it.
	ClaimIndex(ctx context.Context, index, runID string, ttl time.Duration) (string, bool, error)
	ReleaseIndex(ctx context.Context, index, runID string) error
	// AcquireLease makes token the executor of an existing run for ttl unless another token holds it.
	AcquireLease(ctx context.Context, id, token string, ttl time.Duration) (bool, error)
	// RenewLease extends token's lease to ttl; false when the lease is no longer token's (it expired
	// and another worker took the run over, or the run was deleted).
	RenewLease(ctx context.Context, id, token string, ttl time.Duration) (bool, error)
	// ReleaseLease frees the lease if token holds it.
	ReleaseLease(ctx context.Context, id, token string) error
}

// ReadableBy reports whether the caller may see the run: its own runs, the scheduled ones, and for
// operators every run. A run stored before runs had owners (Owner "") and not scheduled is the
// operators' only: its owner is unknown.
func (r Run) ReadableBy(c shariah.Caller) bool {
	return c.Operator || r.Owner == shariah.ServiceOwner || (r.Owner != "" && r.Owner == c.UserID)
}

// ManageableBy reports whether the caller may cancel or delete the run: its own runs; operators every
// run.
func (r Run) ManageableBy(c shariah.Caller) bool {
	return c.Operator || (r.Owner != "" && r.Owner != shariah.ServiceOwner && r.Owner == c.UserID)
}
