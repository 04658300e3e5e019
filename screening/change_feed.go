package screening

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/catalog"
)

// ChangeLog is the ordered, durable record of verdict changes. The result store records a change as it
// replaces a result (ResultStore.PutResult, by ChangeFrom), so every path that stores results (single
// screenings, bulk and scheduled runs, MCP) records through it; the log keeps changes for a retention
// and drops older ones as new ones are recorded.
type ChangeLog interface {
	// ChangesAfter looks through up to count changes recorded after the cursor (CursorStart: from the
	// oldest kept), oldest first, and decodes those of the symbols keep accepts (nil: all). The scan
	// says how many it looked through, the last one's id, and the id of the newest change the retention
	// dropped ("" when none was), read after the changes (so a drop during the read is seen).
	ChangesAfter(ctx context.Context, cursor string, count int, keep func(symbol string) bool) (ChangeScan, error)
}

// ChangeScan is what ChangeLog.ChangesAfter looked through.
type ChangeScan struct {
	Changes []Change // the changes kept, oldest first
	Looked  int      // changes looked through
	Last    string   // the id of the last change looked through ("" when none was)
	Trimmed string   // the id of the newest change the retention dropped ("" when none was)
}

// CursorStart is the cursor before every change: a feed read from it starts at the oldest change kept.
const CursorStart = "0"

// Bounds of the change feed.
const (
	ChangesLimitDefault = 100
	ChangesLimitMax     = 500
	// ChangesScanMax bounds the changes one filtered read looks through: a filter that matches few of
	// them answers fewer than limit, with has_more and a next cursor past what it looked through.
	ChangesScanMax    = 5000
	changesBatch      = 500
	changesMaxSymbols = 200
)

// ChangeQuery asks the feed for the changes after a cursor, of some symbols: those named, those of a
// watchlist of UserID, and an index's constituents (the union of the filters given; every symbol when
// none is).
type ChangeQuery struct {
	Since       string // a change's id, or CursorStart ("" too)
	Symbols     []string
	WatchlistID string
	Index       string
	UserID      string
	Limit       int // 0: ChangesLimitDefault
}

// ChangePage is one read of the feed: the changes in the order they were recorded, and the cursor to
// read on from (the last change served, or the last one looked through when a filter dropped the rest;
// the cursor asked with when there was nothing after it). has_more is true when changes of the filter
// are left after limit, or when a filtered read stopped at ChangesScanMax before the end of the log.
type ChangePage struct {
	Changes    []Change `json:"changes"`
	NextCursor string   `json:"next_cursor"`
	HasMore    bool     `json:"has_more"`
}

// ChangeFeed serves the change log to clients (GET /api/changes and MCP get_verdict_changes): in order,
// after a cursor, filtered by symbols, a watchlist or an index.
type ChangeFeed struct {
	Log        ChangeLog
	Watchlists account.WatchlistStore // nil: a watchlist filter is EUNAVAILABLE
	Indices    catalog.IndexSource
	Retention  time.Duration // what the log keeps, named in the expired cursor's error
}

// Changes reads the feed. A malformed cursor, limit, symbol, or an unknown watchlist or index is
// EVALIDATION naming the field; a cursor older than the oldest change kept is ECURSOREXPIRED (410):
// changes after it were dropped, and the client must start again (from the detail's oldest_cursor).
func (f *ChangeFeed) Changes(ctx context.Context, q ChangeQuery) (ChangePage, error) {
	var v shariah.Validation
	since, limit := f.validate(q, &v)
	want, filtered, err := f.symbols(ctx, q, &v)
	if err != nil {
		return ChangePage{}, err
	}
	if err := v.Err(); err != nil {
		return ChangePage{}, err
	}
	var keep func(string) bool
	if filtered {
		keep = func(sym string) bool { return want[sym] }
	}
	return f.read(ctx, since, limit, keep)
}

// read pages through the log after since: up to limit changes of the symbols keep accepts (nil: all),
// looking through at most ChangesScanMax. The first scan also tells whether since has expired.
func (f *ChangeFeed) read(ctx context.Context, since string, limit int, keep func(string) bool) (ChangePage, error) {
	page := ChangePage{Changes: []Change{}, NextCursor: since}
	for scanned := 0; scanned < ChangesScanMax && len(page.Changes) < limit; {
		n := limit - len(page.Changes) + 1 // one more than the page holds: has_more is then known
		if keep != nil {
			n = min(changesBatch, ChangesScanMax-scanned)
		}
		scan, err := f.Log.ChangesAfter(ctx, page.NextCursor, n, keep)
		if err != nil {
			return ChangePage{}, err
		}
		if scanned == 0 {
			if err := f.expired(since, scan.Trimmed); err != nil {
				return ChangePage{}, err
			}
		}
		scanned += scan.Looked
		for _, c := range scan.Changes {
			if len(page.Changes) == limit {
				page.HasMore = true // kept changes of this scan are left: read on after the last served
				return page, nil
			}
			page.Changes = append(page.Changes, c)
			page.NextCursor = c.ID
		}
		if scan.Last != "" {
			page.NextCursor = scan.Last // past what the filter left
		}
		if scan.Looked < n {
			return page, nil // the end of the log
		}
	}
	page.HasMore = true
	return page, nil
}

// validate reads the cursor and the limit.
func (f *ChangeFeed) validate(q ChangeQuery, v *shariah.Validation) (string, int) {
	since := strings.TrimSpace(q.Since)
	if since == "" {
		since = CursorStart
	}
	if _, _, ok := ParseChangeID(since); !ok {
		v.Add("not a change cursor: give the id or next_cursor of a change (e.g. 1764230400000-0), or 0 for the oldest kept",
			"value_error.cursor", "query", "since")
	}
	limit := q.Limit
	if limit == 0 {
		limit = ChangesLimitDefault
	}
	if limit < 1 || limit > ChangesLimitMax {
		v.Add(fmt.Sprintf("value must be between 1 and %d", ChangesLimitMax), "value_error.number.range", "query", "limit")
	}
	return since, limit
}

// symbols resolves the filters to the set of symbols wanted; filtered is false when none was given.
func (f *ChangeFeed) symbols(ctx context.Context, q ChangeQuery, v *shariah.Validation) (map[string]bool, bool, error) {
	want := map[string]bool{}
	filtered := len(q.Symbols) > 0 || q.WatchlistID != "" || q.Index != ""
	if len(q.Symbols) > changesMaxSymbols {
		v.Add(fmt.Sprintf("at most %d symbols", changesMaxSymbols), "value_error.list.max_items", "query", "symbols")
	} else {
		for i, raw := range q.Symbols {
			sym, ok := shariah.NormalizeSymbol(raw)
			if !ok {
				v.Add("not a valid symbol", "value_error.symbol", "query", "symbols", i)
				continue
			}
			want[sym] = true
		}
	}
	if q.WatchlistID != "" {
		if f.Watchlists == nil {
			return nil, false, shariah.Errorf(shariah.EUNAVAILABLE, "Watchlists are not available here.")
		}
		wl, ok, err := f.watchlist(ctx, q.UserID, q.WatchlistID)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			v.Add("not one of your watchlists", "value_error.watchlist", "query", "watchlist")
		}
		for _, s := range wl.Symbols {
			want[s] = true
		}
	}
	if q.Index != "" {
		name := catalog.NormalizeIndexName(q.Index)
		listing, members, err := catalog.ListIndices(ctx, f.Indices)
		if err != nil {
			return nil, false, err
		}
		if !slices.ContainsFunc(listing, func(l catalog.IndexListing) bool { return l.Name == name }) {
			v.Add(catalog.UnknownIndexMessage(listing), "value_error.index", "query", "index")
		}
		for _, s := range members[name] {
			want[s] = true
		}
	}
	return want, filtered, nil
}

// watchlist reads one of the user's watchlists; ok is false for a malformed id or another user's.
func (f *ChangeFeed) watchlist(ctx context.Context, user, id string) (account.Watchlist, bool, error) {
	if !account.ValidWatchlistID(id) {
		return account.Watchlist{}, false, nil
	}
	return f.Watchlists.Watchlist(ctx, user, id)
}

// expired refuses a cursor before the newest change the retention dropped: changes after the cursor
// may be gone. A cursor at that change or after it lost nothing.
func (f *ChangeFeed) expired(since, trimmed string) error {
	if trimmed == "" || since == CursorStart || CompareChangeIDs(since, trimmed) >= 0 {
		return nil
	}
	keep := "its retention"
	if f.Retention > 0 {
		keep = fmt.Sprintf("%d days", int(f.Retention.Hours()/24))
	}
	return &shariah.Error{Code: shariah.ECURSOREXPIRED,
		Message: fmt.Sprintf("Cursor %s is older than the change log keeps (%s): changes after it were dropped. Read current verdicts again, then follow the feed from since=%s.", since, keep, trimmed),
		Detail:  map[string]any{"cursor": since, "oldest_cursor": trimmed, "retention_days": int(f.Retention.Hours() / 24)}}
}

// ParseChangeID reads a change id ("<ms>-<seq>", as the log assigns them) or CursorStart.
func ParseChangeID(id string) (ms, seq uint64, ok bool) {
	if id == CursorStart {
		return 0, 0, true
	}
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	return ms, seq, err1 == nil && err2 == nil
}

// CompareChangeIDs orders two well-formed change ids (ParseChangeID): -1, 0 or 1. Ids are ordered by
// time, then sequence: as strings they sort only while their sequence numbers have as many digits.
func CompareChangeIDs(a, b string) int {
	am, as, _ := ParseChangeID(a)
	bm, bs, _ := ParseChangeID(b)
	if c := cmp.Compare(am, bm); c != 0 {
		return c
	}
	return cmp.Compare(as, bs)
}
