package screening_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/internal/redistest"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/screening"
)

// nightly is a screener over the default pack whose results record changes, and its change feed.
type nightly struct {
	rc       rueidis.Client
	ref      *sredis.RefStore
	results  *sredis.ResultStore
	screener *screening.Screener
	feed     *screening.ChangeFeed
	members  []string // SP500's constituents in the default pack
}

func setupNightly(t *testing.T) *nightly {
	t.Helper()
	_, rc := redistest.StartWithDefaultPack(t)
	n := &nightly{rc: rc, ref: sredis.NewRefStore(rc), results: sredis.NewResultStore(rc)}
	n.screener = &screening.Screener{Ref: n.ref, Results: n.results, Rulesets: allRulesets(t)}
	n.feed = &screening.ChangeFeed{Log: n.results, Watchlists: sredis.NewWatchlistStore(rc), Indices: n.ref, Retention: n.results.ChangeRetention()}
	_, members, err := catalog.ListIndices(context.Background(), n.ref)
	if err != nil {
		t.Fatal(err)
	}
	n.members = members["SP500"]
	if len(n.members) < 5 {
		t.Fatalf("SP500 has %d members in the default pack", len(n.members))
	}
	return n
}

// run screens every SP500 member as a bulk run does (forced, with the run's id), by symbol.
func (n *nightly) run(t *testing.T, runID string) map[string]screening.Result {
	t.Helper()
	out := map[string]screening.Result{}
	for _, sym := range n.members {
		r, _, err := n.screener.Screen(context.Background(), sym, screening.ScreenOptions{ForceRefresh: true, RunID: runID})
		if err != nil {
			t.Fatal(sym, err)
		}
		out[sym] = r
	}
	return out
}

// loadDebt sets the total debt of a symbol's latest period to ten times its total assets.
func (n *nightly) loadDebt(t *testing.T, sym string) {
	t.Helper()
	ctx := context.Background()
	fs, err := n.ref.Fundamentals(ctx, sym)
	if err != nil || len(fs) == 0 {
		t.Fatal(sym, len(fs), err)
	}
	last := fs[len(fs)-1]
	facts := map[shariah.Field]shariah.Fact{}
	for k, v := range last.Facts {
		facts[k] = v
	}
	d := facts[shariah.TotalAssets]
	d.Value = shariah.NewNumber(d.Value.Decimal.Mul(dec("10")))
	facts[shariah.TotalDebt] = d
	last.Facts = facts
	if err := n.ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{sym: {last}}); err != nil {
		t.Fatal(err)
	}
}

func (n *nightly) all(t *testing.T) []screening.Change {
	t.Helper()
	p, err := n.feed.Changes(context.Background(), screening.ChangeQuery{Limit: screening.ChangesLimitMax})
	if err != nil {
		t.Fatal(err)
	}
	return p.Changes
}

// ratio finds a methodology's ratio in a result.
func ratio(r screening.Result, methodology, id string) screening.RatioResult {
	for _, ra := range r.ByMethodology[methodology].Ratios {
		if ra.ID == id {
			return ra
		}
	}
	return screening.RatioResult{}
}

// A nightly-style rescreen of an index after two companies' debt rose records exactly two changes,
// with the verdicts before and after, the ratios that crossed with the values of the two screenings,
// and the run as the cause; rescreening again unchanged records none.
func TestNightlyRescreenRecordsTheVerdictsThatMoved(t *testing.T) {
	t.Parallel()
	n := setupNightly(t)
	first := n.run(t, "run-1")
	if got := n.all(t); len(got) != 0 {
		t.Fatalf("the first run recorded %d changes: %+v", len(got), got)
	}
	var moved []string
	for _, sym := range n.members {
		if first[sym].ComplianceStatus == "COMPLIANT" && len(moved) < 2 {
			moved = append(moved, sym)
		}
	}
	if len(moved) != 2 {
		t.Fatalf("fewer than two compliant SP500 members: %v", moved)
	}
	for _, sym := range moved {
		n.loadDebt(t, sym)
	}
	second := n.run(t, "run-2")
	got := n.all(t)
	if len(got) != 2 {
		t.Fatalf("%d changes, want 2 (%v): %+v", len(got), moved, got)
	}
	for i, c := range got {
		sym := moved[i] // the run screens in the index's order
		before, after := first[sym], second[sym]
		if c.Symbol != sym || c.Ruleset != "spec" || c.Before.ComplianceStatus != "COMPLIANT" || c.After.ComplianceStatus != after.ComplianceStatus ||
			after.ComplianceStatus == "COMPLIANT" || !slices.Contains(c.Kinds, screening.ChangeOverall) ||
			c.Cause.Kind != screening.CauseBulkRun || c.Cause.RunID != "run-2" || !c.Before.ScreenedAt.Equal(before.ScreenedAt) ||
			!c.At.Equal(after.ScreenedAt) {
			t.Errorf("change of %s: %+v", sym, c)
		}
		for k, mr := range after.ByMethodology {
			if c.Before.Methodologies[k] != before.ByMethodology[k].Verdict || c.After.Methodologies[k] != mr.Verdict {
				t.Errorf("%s %s: before %s after %s, want %s and %s", sym, k, c.Before.Methodologies[k], c.After.Methodologies[k], before.ByMethodology[k].Verdict, mr.Verdict)
			}
		}
		i := slices.IndexFunc(c.Crossed, func(x screening.CrossedRatio) bool { return x.Methodology == "AAOIFI" && x.Ratio == "debt" })
		if i < 0 {
			t.Fatalf("%s: AAOIFI's debt ratio not among the crossed: %+v", sym, c.Crossed)
		}
		x, b, a := c.Crossed[i], ratio(before, "AAOIFI", "debt"), ratio(after, "AAOIFI", "debt")
		if !x.PassBefore || x.PassAfter || x.ThresholdBP.String() != "3000" || !x.Before.Equal(b.Value.Decimal) || !x.After.Equal(a.Value.Decimal) {
			t.Errorf("%s crossed debt: %+v (before %s, after %s)", sym, x, b.Value, a.Value)
		}
		for _, x := range c.Crossed {
			if x.PassBefore == x.PassAfter {
				t.Errorf("%s: a ratio listed as crossed did not cross: %+v", sym, x)
			}
		}
	}
	n.run(t, "run-3")
	if got := n.all(t); len(got) != 2 {
		t.Fatalf("an unchanged rescreen recorded %d more changes", len(got)-2)
	}
}

// flip records changes of a symbol directly through the result store: its stored result written again
// times times, its overall verdict alternating with another.
func flip(t *testing.T, n *nightly, sym string, times int) {
	t.Helper()
	ctx := context.Background()
	r, err := n.screener.Cached(ctx, sym, screening.ScreenOptions{})
	if err != nil {
		if r, _, err = n.screener.Screen(ctx, sym, screening.ScreenOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	orig, alt := r.ComplianceStatus, "NON_COMPLIANT"
	if orig == alt {
		alt = "COMPLIANT"
	}
	for range times {
		if r.ComplianceStatus == orig {
			r.ComplianceStatus = alt
		} else {
			r.ComplianceStatus = orig
		}
		r.ScreenedAt = r.ScreenedAt.Add(time.Minute)
		if err := n.results.PutResult(ctx, r, 1); err != nil {
			t.Fatal(err)
		}
	}
}

// The feed pages in order with its next cursor, filters by symbols, a watchlist and an index (their
// union), and reaches the end with has_more false and the cursor where it stopped.
func TestChangeFeedPagesAndFilters(t *testing.T) {
	t.Parallel()
	n := setupNightly(t)
	ctx := context.Background()
	a, b := n.members[0], n.members[1]
	flip(t, n, a, 2)
	flip(t, n, b, 1)
	flip(t, n, "SAP.DE", 1) // not in SP500 (a DAX40 member of the pack)
	all := n.all(t)
	if len(all) != 4 {
		t.Fatalf("%d changes, want 4", len(all))
	}
	// Paging: two at a time; the second page is the last (has_more false), and a read after it is empty.
	var paged []string
	cursor := ""
	for i := range 3 {
		p, err := n.feed.Changes(ctx, screening.ChangeQuery{Since: cursor, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Changes {
			paged = append(paged, c.ID)
		}
		if len(p.Changes) != []int{2, 2, 0}[i] || p.HasMore != (i == 0) || p.NextCursor != all[[]int{1, 3, 3}[i]].ID {
			t.Fatalf("page %d after %q: %d changes, next %s, has_more %v", i, cursor, len(p.Changes), p.NextCursor, p.HasMore)
		}
		cursor = p.NextCursor
	}
	var ids []string
	for _, c := range all {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(paged, ids) {
		t.Fatalf("paged %v, want %v", paged, ids)
	}
	symbolsOf := func(q screening.ChangeQuery) []string {
		t.Helper()
		q.UserID = "u1"
		p, err := n.feed.Changes(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range p.Changes {
			out = append(out, c.Symbol)
		}
		if p.HasMore || (len(p.Changes) > 0 && p.NextCursor != all[3].ID) {
			t.Fatalf("a filtered read to the end: has_more %v, next %s", p.HasMore, p.NextCursor)
		}
		return out
	}
	if got := symbolsOf(screening.ChangeQuery{Symbols: []string{" " + b + " "}}); !slices.Equal(got, []string{b}) {
		t.Errorf("symbols=%s: %v", b, got)
	}
	if got := symbolsOf(screening.ChangeQuery{Index: "sp500"}); !slices.Equal(got, []string{a, a, b}) {
		t.Errorf("index=SP500: %v", got)
	}
	lists := &account.Watchlists{Store: sredis.NewWatchlistStore(n.rc), Resolve: func(_ context.Context, s string) (string, error) { return s, nil }}
	wl, err := lists.Create(ctx, "u1", ptr("europe"), []string{"SAP.DE"})
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolsOf(screening.ChangeQuery{WatchlistID: wl.ID, Symbols: []string{b}}); !slices.Equal(got, []string{b, "SAP.DE"}) {
		t.Errorf("watchlist and symbols: %v", got)
	}
	// A filtered read that stops at its limit with matching changes left says so, and reads on after what
	// it served; one that served the last match moves its cursor past the changes the filter left.
	var served []string
	cursor = ""
	for i := range 3 {
		p, err := n.feed.Changes(ctx, screening.ChangeQuery{Since: cursor, Symbols: []string{a}, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Changes {
			served = append(served, c.ID)
		}
		// The first page leaves a's second change; the second knows nothing after it matches.
		if wantMore := i == 0; p.HasMore != wantMore || (i > 0 && p.NextCursor != all[3].ID) || (i == 2 && len(p.Changes) != 0) {
			t.Fatalf("filtered page %d: %+v", i, p)
		}
		cursor = p.NextCursor
	}
	if !slices.Equal(served, ids[:2]) {
		t.Fatalf("filtered pages served %v, want %v", served, ids[:2])
	}
	// The cursor of a filtered read that matched nothing moves past what it looked through.
	p, err := n.feed.Changes(ctx, screening.ChangeQuery{Symbols: []string{"ZZZZ"}})
	if err != nil || len(p.Changes) != 0 || p.NextCursor != all[3].ID || p.HasMore {
		t.Fatalf("a filter matching nothing: %+v %v", p, err)
	}
}

// Bad inputs are VALIDATION_ERRORs naming the field: a malformed cursor, a limit out of range, a
// malformed symbol, a watchlist that is not the caller's, an unknown index.
func TestChangeFeedRefusesBadInput(t *testing.T) {
	t.Parallel()
	n := setupNightly(t)
	ctx := context.Background()
	other, err := (&account.Watchlists{Store: sredis.NewWatchlistStore(n.rc), Resolve: func(_ context.Context, s string) (string, error) { return s, nil }}).
		Create(ctx, "someone-else", ptr("theirs"), []string{"AAPL"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q   screening.ChangeQuery
		loc []any
	}{
		{screening.ChangeQuery{Since: "yesterday"}, []any{"query", "since"}},
		{screening.ChangeQuery{Since: "1764230400000"}, []any{"query", "since"}},
		{screening.ChangeQuery{Since: "-1-0"}, []any{"query", "since"}},
		{screening.ChangeQuery{Limit: -1}, []any{"query", "limit"}},
		{screening.ChangeQuery{Limit: screening.ChangesLimitMax + 1}, []any{"query", "limit"}},
		{screening.ChangeQuery{Symbols: []string{"AAPL", "not a symbol!"}}, []any{"query", "symbols", 1}},
		{screening.ChangeQuery{WatchlistID: "nope"}, []any{"query", "watchlist"}},
		{screening.ChangeQuery{WatchlistID: other.ID}, []any{"query", "watchlist"}},
		{screening.ChangeQuery{Index: "NOPE100"}, []any{"query", "index"}},
	} {
		c.q.UserID = "u1"
		_, err := n.feed.Changes(ctx, c.q)
		if errs := fieldErrors(t, err); !hasFieldError(errs, "", c.loc...) {
			t.Errorf("%+v: %v, want a field error at %v", c.q, errs, c.loc)
		}
	}
}

// A cursor before the newest change the retention dropped is CURSOR_EXPIRED (410) naming the oldest
// cursor to read on from; that cursor, and a cursor after it, read on.
func TestChangeFeedCursorAcrossRetention(t *testing.T) {
	t.Parallel()
	n := setupNightly(t)
	ctx := context.Background()
	now := time.Now()
	n.results = n.results.WithChangeRetention(24 * time.Hour).WithClock(func() time.Time { return now })
	n.feed.Retention = 24 * time.Hour
	sym := n.members[0]
	flip(t, n, sym, 2)
	kept := n.all(t)
	if len(kept) != 2 {
		t.Fatalf("%d changes, want 2", len(kept))
	}
	now = now.Add(48 * time.Hour)
	flip(t, n, sym, 1)
	_, err := n.feed.Changes(ctx, screening.ChangeQuery{Since: kept[0].ID})
	var e *shariah.Error
	if !errors.As(err, &e) || e.Code != shariah.ECURSOREXPIRED {
		t.Fatalf("a cursor across the retention: %v, want CURSOR_EXPIRED", err)
	}
	if st, _ := shariah.HTTPStatus(e.Code); st != 410 || e.Detail.(map[string]any)["oldest_cursor"] != kept[1].ID {
		t.Fatalf("status %d, detail %v", st, e.Detail)
	}
	for _, since := range []string{kept[1].ID, "", screening.CursorStart} {
		p, err := n.feed.Changes(ctx, screening.ChangeQuery{Since: since})
		if err != nil || len(p.Changes) != 1 || p.Changes[0].At.Before(kept[1].At) {
			t.Fatalf("since %q: %+v %v", since, p, err)
		}
	}
}

func ptr(s string) *string { return &s }

// The rule, at its edges: a ratio that moves without a verdict moving is no change; a methodology
// appearing counts; the data source alone counts; a ratio unknown on one side is not "crossed"; a
// filing new to the result is the cause unless a run screened it.
func TestDiffResultsRule(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	mk := func(overall string, verdicts map[string]string, debt string, pass *bool, illustrative bool, refs ...string) screening.Result {
		r := screening.Result{Symbol: "X", ComplianceStatus: overall, ByMethodology: map[string]screening.MethodologyResult{},
			DataQuality: screening.DataQuality{Sources: []string{shariah.SourceFiling}, Illustrative: illustrative, SourceRefs: refs}}
		for k, v := range verdicts {
			r.ByMethodology[k] = screening.MethodologyResult{Verdict: v, Ratios: []screening.RatioResult{{ID: "debt", Value: decp(debt), Pass: pass, ThresholdBP: amt("3000")}}}
		}
		return r
	}
	pass := map[string]string{"AAOIFI": "compliant"}
	fail := map[string]string{"AAOIFI": "non_compliant"}
	for _, c := range []struct {
		name          string
		before, after screening.Result
		kinds         []string
		crossed       int
	}{
		{"a ratio moves, no verdict", mk("COMPLIANT", pass, "0.10", &yes, false), mk("COMPLIANT", pass, "0.29", &yes, false), nil, 0},
		{"a verdict moves", mk("COMPLIANT", pass, "0.10", &yes, false), mk("NON_COMPLIANT", fail, "0.31", &no, false),
			[]string{screening.ChangeOverall, screening.ChangeMethodology}, 1},
		{"a methodology appears", mk("COMPLIANT", pass, "0.10", &yes, false), mk("COMPLIANT", map[string]string{"AAOIFI": "compliant", "DJIM": "compliant"}, "0.10", &yes, false),
			[]string{screening.ChangeMethodology}, 0},
		{"the data source alone", mk("COMPLIANT", pass, "0.10", &yes, true), mk("COMPLIANT", pass, "0.10", &yes, false), []string{screening.ChangeDataSource}, 0},
		{"unknown before is not crossed", mk("INSUFFICIENT_DATA", map[string]string{"AAOIFI": "insufficient_data"}, "0", nil, false), mk("NON_COMPLIANT", fail, "0.31", &no, false),
			[]string{screening.ChangeOverall, screening.ChangeMethodology}, 0},
	} {
		ch, ok := screening.DiffResults(c.before, c.after)
		if ok != (c.kinds != nil) || !slices.Equal(ch.Kinds, c.kinds) || len(ch.Crossed) != c.crossed {
			t.Errorf("%s: ok %v, kinds %v, crossed %+v", c.name, ok, ch.Kinds, ch.Crossed)
		}
		if (screening.VerdictKey(c.before) == screening.VerdictKey(c.after)) == ok {
			t.Errorf("%s: verdict keys disagree with the rule (change %v)", c.name, ok)
		}
	}
	before := mk("COMPLIANT", pass, "0.10", &yes, false, "0000320193-25-000001")
	after := mk("NON_COMPLIANT", fail, "0.31", &no, false, "0000320193-25-000001", "0000320193-25-000079", "default pack")
	if ch, _ := screening.DiffResults(before, after); ch.Cause.Kind != screening.CauseFiling || !slices.Equal(ch.Cause.Filings, []string{"0000320193-25-000079"}) {
		t.Errorf("filing cause: %+v", ch.Cause)
	}
	after.RunID = "run-9"
	if ch, _ := screening.DiffResults(before, after); ch.Cause.Kind != screening.CauseBulkRun || ch.Cause.RunID != "run-9" || len(ch.Cause.Filings) != 1 {
		t.Errorf("run cause: %+v", ch.Cause)
	}
}
