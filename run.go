package shariah

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Run states (decisions.md section 5).
const (
	RunQueued    = "queued"
	RunRunning   = "running"
	RunCompleted = "completed"
	RunCancelled = "cancelled"
	RunFailed    = "failed"
	// RunStalled is how a running run reads while its worker has stopped heartbeating (crashed, frozen
	// or cut off): it is stored as running, stays cancellable and is not deletable; another worker takes
	// it over when the worker's lease expires (takeover.go).
	RunStalled = "stalled"
)

// RunStates are the states a run reads as, for filters and documentation.
var RunStates = []string{RunQueued, RunRunning, RunStalled, RunCompleted, RunCancelled, RunFailed}

// ServiceOwner owns the scheduled rescreens: every key may read them, only operators manage them.
const ServiceOwner = "service"

// Caller is who acts on runs: the account (the user id shared by its API keys, or the local MCP user)
// and whether it is an operator (a key of the internal plan), who may read and manage every run.
type Caller struct {
	UserID   string
	Operator bool
}

// ServiceCaller starts the scheduled rescreens.
var ServiceCaller = Caller{UserID: ServiceOwner, Operator: true}

// CallerOf is the caller an API key identifies.
func CallerOf(k APIKey) Caller { return Caller{UserID: k.UserID, Operator: k.Plan == PlanInternal} }

// CanRead reports whether the caller may see the run: its own runs, the scheduled ones, and for
// operators every run. A run stored before runs had owners (Owner "") and not scheduled is the
// operators' only: its owner is unknown.
func (c Caller) CanRead(r Run) bool {
	return c.Operator || r.Owner == ServiceOwner || (r.Owner != "" && r.Owner == c.UserID)
}

// CanManage reports whether the caller may cancel or delete the run: its own runs; operators every run.
func (c Caller) CanManage(r Run) bool {
	return c.Operator || (r.Owner != "" && r.Owner != ServiceOwner && r.Owner == c.UserID)
}

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
	return r.Status == RunCompleted || r.Status == RunCancelled || r.Status == RunFailed
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
		p.Percent = RatioPercent(int64(r.Processed), int64(r.Total))
	}
	if r.Status == RunRunning && r.StartedAt != nil && r.Processed > 0 && r.Processed < r.Total {
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

// RunItem is one symbol of a run.
type RunItem struct {
	Symbol         string  `json:"symbol"`
	Name           string  `json:"name"`
	Sector         string  `json:"sector"`
	Status         string  `json:"status"` // the overall compliance status, or ERROR
	IsCompliant    *bool   `json:"is_compliant"`
	HasError       bool    `json:"has_error"`
	Error          string  `json:"error,omitempty"`
	PreviousStatus string  `json:"previous_status,omitempty"` // in the index's previous completed run
	StatusChanged  bool    `json:"status_changed"`
	Result         *Result `json:"result,omitempty"` // the full screening result (null on error)
}

// RunFilter selects runs for the history.
type RunFilter struct {
	IndexName string
	Status    string
	Since     time.Time // created at or after (zero: any time)
}

// RunStore holds bulk runs, their constituents and their per-symbol results.
type RunStore interface {
	CreateRun(ctx context.Context, r Run, symbols []string) error
	Run(ctx context.Context, id string) (Run, bool, error)
	// SetStatus moves a run to status if its current status is one of from; it reports whether it did.
	SetStatus(ctx context.Context, id, status string, from []string, at time.Time, errMsg string) (bool, error)
	// SetProgress records the current symbol and counts (never the status) of an existing run.
	SetProgress(ctx context.Context, id, current string, processed, errors int, at time.Time) error
	RunSymbols(ctx context.Context, id string) ([]string, error)
	// PutItem stores a symbol's outcome once: a second write of the same symbol is ignored (false), and
	// so is a write to a deleted run (nothing of it is recreated).
	PutItem(ctx context.Context, id string, it RunItem) (bool, error)
	Items(ctx context.Context, id string) ([]RunItem, error)
	DoneSymbols(ctx context.Context, id string) (map[string]bool, error)
	// Runs lists runs newest first, filtered, with the total before paging.
	Runs(ctx context.Context, f RunFilter, offset, limit int) ([]Run, int, error)
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

// ItemView is the row of a run's results as listed (the full result is in the JSON export). The
// screening fields are the result's (seen through a methodology when one is given), derived by the
// same code as the screening result's; null (by_methodology empty) for an error.
type ItemView struct {
	Symbol               string                       `json:"symbol"`
	Name                 string                       `json:"name"`
	Sector               string                       `json:"sector"`
	Industry             *string                      `json:"industry"`
	Status               string                       `json:"status"`
	ShariahStatus        string                       `json:"shariah_compliance_status"` // status in lower case (error for an error)
	IsCompliant          *bool                        `json:"is_compliant"`
	AbstainReason        string                       `json:"abstain_reason,omitempty"` // why, when INSUFFICIENT_DATA
	HasError             bool                         `json:"has_error"`
	Error                string                       `json:"error,omitempty"`
	PreviousStatus       string                       `json:"previous_status,omitempty"`
	StatusChanged        bool                         `json:"status_changed"`
	Methodologies        map[string]string            `json:"methodologies"`
	ByMethodology        map[string]MethodologyResult `json:"by_methodology"` // keyed by MethodologyKey (SP)
	BusinessScreenPass   *bool                        `json:"business_screen_pass"`
	BusinessScreenReason *string                      `json:"business_screen_reason"`
	FinancialScreenPass  *bool                        `json:"financial_screen_pass"`
	FinancialRatios      map[string]*Number           `json:"financial_ratios"`
	PurificationRate     *Number                      `json:"purification_rate"`          // percent: 3.37 means 3.37%
	PurificationFrac     *Number                      `json:"purification_rate_fraction"` // the same as a fraction
	MarketCap            *Number                      `json:"market_cap"`
	MarketCapCcy         *string                      `json:"market_cap_currency"`
	DebtToMarketCap      *Number                      `json:"debt_to_market_cap_ratio"`
	CashToMarketCap      *Number                      `json:"cash_to_market_cap_ratio"`
	LiquidityToMarketCap *Number                      `json:"liquidity_to_market_cap_ratio"`
	ReceivablesToAssets  *Number                      `json:"accounts_receivable_to_assets_ratio"`
	InterestToRevenue    *Number                      `json:"interest_income_to_revenue_ratio"`
	Explanation          string                       `json:"compliance_explanation"`
	Illustrative         bool                         `json:"illustrative"`
}

// ItemQuery filters and orders a run's results.
type ItemQuery struct {
	Compliant   *bool  // on is_compliant, or on the methodology's verdict when Methodology is set
	Methodology string // methodology id or name (aaoifi, djim, ...): its verdict becomes the status
	Sector      string
	HasError    *bool
	SortBy      string // symbol, name, sector, status, purification_rate, debt_ratio
	SortDesc    bool
	Page        int
	PageSize    int
}

// ItemSortKeys are the valid sort_by values.
var ItemSortKeys = []string{"symbol", "name", "sector", "status", "purification_rate", "debt_ratio"}

// View turns a run item into its listed row, seen through a methodology when given.
func (it RunItem) View(methodology string) ItemView {
	v := ItemView{Symbol: it.Symbol, Name: it.Name, Sector: it.Sector, Status: it.Status, IsCompliant: it.IsCompliant,
		HasError: it.HasError, Error: it.Error, PreviousStatus: it.PreviousStatus, StatusChanged: it.StatusChanged,
		Methodologies: map[string]string{}, ByMethodology: map[string]MethodologyResult{}, FinancialRatios: map[string]*Number{}}
	if it.Result != nil {
		r := *it.Result // a copy: seeing it through a methodology changes only its own fields
		if methodology != "" {
			for name, mr := range r.ByMethodology {
				if strings.EqualFold(name, methodology) || strings.EqualFold(mr.ID, methodology) || strings.EqualFold(mr.Methodology, methodology) {
					r.setOverall(strings.ToUpper(mr.Verdict), mr.Methodology)
					v.Status, v.IsCompliant = r.ComplianceStatus, r.IsCompliant
				}
			}
		}
		v.AbstainReason, v.Industry, v.Methodologies, v.ByMethodology, v.FinancialRatios = r.AbstainReason, r.Industry, r.Methodologies, r.ByMethodology, r.FinancialRatios
		v.BusinessScreenPass, v.BusinessScreenReason, v.FinancialScreenPass = r.BusinessScreenPass, r.BusinessScreenReason, r.FinancialScreenPass
		v.PurificationRate, v.PurificationFrac, v.MarketCap, v.MarketCapCcy = r.PurificationRate, r.PurificationFraction, r.MarketCap, r.MarketCapCurrency
		v.DebtToMarketCap, v.CashToMarketCap, v.LiquidityToMarketCap = r.DebtToMarketCap, r.CashToMarketCap, r.LiquidityToMarketCap
		v.ReceivablesToAssets, v.InterestToRevenue = r.ReceivablesToAssets, r.InterestToRevenue
		v.Explanation, v.Illustrative = r.ComplianceExplanation, r.DataQuality.Illustrative
	}
	v.ShariahStatus = strings.ToLower(v.Status)
	return v
}

// debtRatio is the first debt ratio of a row, for sorting (-1 when unknown).
func (v ItemView) debtRatio() decimal.Decimal {
	for _, k := range []string{"debt_to_total_assets", "debt_to_market_cap_avg_24m", "debt_to_market_cap_avg_36m"} {
		if n := v.FinancialRatios[k]; n != nil {
			return n.Decimal
		}
	}
	return decimal.NewFromInt(-1)
}

// QueryItems filters, sorts and pages a run's results; it returns the page and the filtered total.
func QueryItems(items []RunItem, q ItemQuery) ([]ItemView, int) {
	var rows []ItemView
	for _, it := range items {
		v := it.View(q.Methodology)
		if q.Compliant != nil && (v.IsCompliant == nil || *v.IsCompliant != *q.Compliant) {
			continue
		}
		if q.Sector != "" && !strings.EqualFold(v.Sector, q.Sector) {
			continue
		}
		if q.HasError != nil && v.HasError != *q.HasError {
			continue
		}
		rows = append(rows, v)
	}
	less := func(a, b ItemView) bool { return a.Symbol < b.Symbol }
	switch q.SortBy {
	case "name":
		less = func(a, b ItemView) bool { return a.Name < b.Name }
	case "sector":
		less = func(a, b ItemView) bool { return a.Sector < b.Sector }
	case "status":
		less = func(a, b ItemView) bool { return a.Status < b.Status }
	case "purification_rate":
		less = func(a, b ItemView) bool {
			ra, rb := decimal.NewFromInt(-1), decimal.NewFromInt(-1)
			if a.PurificationRate != nil {
				ra = a.PurificationRate.Decimal
			}
			if b.PurificationRate != nil {
				rb = b.PurificationRate.Decimal
			}
			return ra.LessThan(rb)
		}
	case "debt_ratio":
		less = func(a, b ItemView) bool { return a.debtRatio().LessThan(b.debtRatio()) }
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if q.SortDesc {
			return less(rows[j], rows[i])
		}
		return less(rows[i], rows[j])
	})
	total := len(rows)
	start := (q.Page - 1) * q.PageSize
	if start >= total {
		return []ItemView{}, total
	}
	return rows[start:min(start+q.PageSize, total)], total
}

// Tally counts verdicts.
type Tally struct {
	Total            int    `json:"total"`
	Compliant        int    `json:"compliant"`
	NonCompliant     int    `json:"non_compliant"`
	Questionable     int    `json:"questionable"`
	InsufficientData int    `json:"insufficient_data"`
	Errors           int    `json:"errors"`
	CompliantPct     string `json:"compliance_rate_pct"` // compliant among those with a verdict
}

func (t *Tally) add(status string) {
	t.Total++
	switch strings.ToUpper(status) {
	case "COMPLIANT":
		t.Compliant++
	case "NON_COMPLIANT":
		t.NonCompliant++
	case "QUESTIONABLE":
		t.Questionable++
	case "INSUFFICIENT_DATA":
		t.InsufficientData++
	default:
		t.Errors++
	}
}

func (t *Tally) finish() {
	den := t.Compliant + t.NonCompliant + t.Questionable
	t.CompliantPct = "0.00"
	if den > 0 {
		t.CompliantPct = RatioPercent(int64(t.Compliant), int64(den))
	}
}

// RunSummary aggregates a run.
type RunSummary struct {
	Overall       Tally            `json:"overall"`
	ByMethodology map[string]Tally `json:"by_methodology"`
	BySector      map[string]Tally `json:"by_sector"`
	TopCompliant  []ItemView       `json:"top_compliant"`
	StatusChanges int              `json:"status_changes"`
	// DataSources counts the run's screened companies (one result each; errors excluded) by what their
	// fundamentals stand on: filed, illustrative or none.
	DataSources SourceCounts `json:"data_sources"`
	// CompanyDataSources counts the distinct companies among them (share classes such as GOOG and
	// GOOGL count once; CompanySources).
	CompanyDataSources SourceCounts `json:"company_data_sources"`
}

// Summarize builds a run's summary: statistics by methodology and sector, the overall rate, and the
// top compliant stocks (most methodologies compliant, then lowest debt ratio; ten at most).
// cat, when given, tells the companies behind the symbols (CompanyKey); without it each symbol is one.
func Summarize(items []RunItem, cat *Catalog) RunSummary {
	s := RunSummary{ByMethodology: map[string]Tally{}, BySector: map[string]Tally{}, TopCompliant: []ItemView{}}
	var top []ItemView
	companies := CompanySources{}
	for _, it := range items {
		v := it.View("")
		s.Overall.add(v.Status)
		sector := v.Sector
		if sector == "" {
			sector = "Unclassified"
		}
		t := s.BySector[sector]
		t.add(v.Status)
		s.BySector[sector] = t
		for m, verdict := range v.Methodologies {
			t := s.ByMethodology[m]
			t.add(verdict)
			s.ByMethodology[m] = t
		}
		if it.StatusChanged {
			s.StatusChanges++
		}
		if it.Result != nil && !it.HasError {
			src := DataSourceOf(*it.Result)
			s.DataSources.Add(src)
			companies.Add(companyOf(cat, it.Symbol), src)
		}
		if v.Status == "COMPLIANT" {
			top = append(top, v)
		}
	}
	s.CompanyDataSources = companies.Counts()
	s.Overall.finish()
	for k, t := range s.BySector {
		t.finish()
		s.BySector[k] = t
	}
	for k, t := range s.ByMethodology {
		t.finish()
		s.ByMethodology[k] = t
	}
	passes := func(v ItemView) int {
		n := 0
		for _, verdict := range v.Methodologies {
			if verdict == Compliant {
				n++
			}
		}
		return n
	}
	sort.SliceStable(top, func(i, j int) bool {
		if pi, pj := passes(top[i]), passes(top[j]); pi != pj {
			return pi > pj
		}
		return top[i].debtRatio().LessThan(top[j].debtRatio())
	})
	if len(top) > 10 {
		top = top[:10]
	}
	s.TopCompliant = append(s.TopCompliant, top...)
	return s
}

// StatusChange is a symbol whose status differs between two runs.
type StatusChange struct {
	Symbol string `json:"symbol"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// RunComparison compares run A (before) with run B (after).
type RunComparison struct {
	RunA              string         `json:"run_a"`
	RunB              string         `json:"run_b"`
	Changed           []StatusChange `json:"changed"`
	NewlyCompliant    []string       `json:"newly_compliant"`
	NewlyNonCompliant []string       `json:"newly_non_compliant"`
	Added             []string       `json:"added"`
	Removed           []string       `json:"removed"`
	Unchanged         int            `json:"unchanged"`
}

// CompareRuns lists the symbols whose status changed, became compliant or non-compliant, and the
// symbols added to or removed from the index between two runs.
func CompareRuns(a, b string, itemsA, itemsB []RunItem) RunComparison {
	c := RunComparison{RunA: a, RunB: b, Changed: []StatusChange{}, NewlyCompliant: []string{}, NewlyNonCompliant: []string{}, Added: []string{}, Removed: []string{}}
	before := map[string]string{}
	for _, it := range itemsA {
		before[it.Symbol] = it.Status
	}
	after := map[string]bool{}
	for _, it := range itemsB {
		after[it.Symbol] = true
		from, ok := before[it.Symbol]
		switch {
		case !ok:
			c.Added = append(c.Added, it.Symbol)
		case from != it.Status:
			c.Changed = append(c.Changed, StatusChange{Symbol: it.Symbol, From: from, To: it.Status})
			if it.Status == "COMPLIANT" {
				c.NewlyCompliant = append(c.NewlyCompliant, it.Symbol)
			}
			if it.Status == "NON_COMPLIANT" {
				c.NewlyNonCompliant = append(c.NewlyNonCompliant, it.Symbol)
			}
		default:
			c.Unchanged++
		}
	}
	for _, it := range itemsA {
		if !after[it.Symbol] {
			c.Removed = append(c.Removed, it.Symbol)
		}
	}
	sort.Slice(c.Changed, func(i, j int) bool { return c.Changed[i].Symbol < c.Changed[j].Symbol })
	for _, l := range [][]string{c.NewlyCompliant, c.NewlyNonCompliant, c.Added, c.Removed} {
		sort.Strings(l)
	}
	return c
}
