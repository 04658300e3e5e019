package redis_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/screening"
)

// verdictResult is a stored result of the spec ruleset whose AAOIFI debt ratio is debt (a fraction
// against 30%), deciding AAOIFI and the overall verdict; DJIM stays compliant.
func verdictResult(sym, debt string, at time.Time, source string) screening.Result {
	v := shariah.NewNumber(decimal.RequireFromString(debt))
	pass := v.Decimal.LessThan(decimal.RequireFromString("0.3"))
	verdict, overall := "compliant", "COMPLIANT"
	if !pass {
		verdict, overall = "non_compliant", "QUESTIONABLE"
	}
	yes := true
	r := screening.Result{Symbol: sym, ComplianceStatus: overall, OverallStatus: overall, ScreenedAt: at,
		Ruleset: screening.RulesetRef{Name: "spec"},
		ByMethodology: map[string]screening.MethodologyResult{
			"AAOIFI": {Methodology: "AAOIFI", ID: "aaoifi", Verdict: verdict, Ratios: []screening.RatioResult{
				{ID: "debt", Value: &v, ThresholdBP: shariah.NewNumber(decimal.NewFromInt(3000)), Comparator: "lt", Pass: &pass}}},
			"DJIM": {Methodology: "DJIM", ID: "djim", Verdict: "compliant", Ratios: []screening.RatioResult{
				{ID: "debt", Value: &v, ThresholdBP: shariah.NewNumber(decimal.NewFromInt(3300)), Comparator: "lt", Pass: &yes}}},
		},
		DataQuality: screening.DataQuality{Sources: []string{source}, Illustrative: source == shariah.SourceIllustrative}}
	if source == shariah.SourceFiling {
		r.DataQuality.SourceRefs = []string{"0000320193-25-000079"}
	}
	return r
}

func changesOf(t *testing.T, log screening.ChangeLog) []screening.Change {
	t.Helper()
	scan, err := log.ChangesAfter(context.Background(), screening.CursorStart, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	return scan.Changes
}

// The result store records a change when a result replaces one whose verdicts differ, and only then:
// not for a first screening, not for a rescreen that moves a ratio without moving a verdict. The
// change says before and after, the ratio that crossed with its two values, and the cause; the next
// change's before is the previous one's after.
func TestResultStoreRecordsVerdictChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rc := setup(t, testsvc.MustRedis(t).RedisURL()).client
	store := sredis.NewResultStore(rc)
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	put := func(r screening.Result) {
		t.Helper()
		if err := store.PutResult(ctx, r, 1); err != nil {
			t.Fatal(err)
		}
	}
	put(verdictResult("AAPL", "0.25", t0, shariah.SourceIllustrative))
	put(verdictResult("AAPL", "0.26", t0.Add(time.Hour), shariah.SourceIllustrative)) // a ratio moves, no verdict
	if got := changesOf(t, store); len(got) != 0 {
		t.Fatalf("first screening and an unchanged rescreen recorded %d changes: %+v", len(got), got)
	}
	moved := verdictResult("AAPL", "0.31", t0.Add(2*time.Hour), shariah.SourceIllustrative)
	moved.RunID = "run-1"
	put(moved)
	put(verdictResult("AAPL", "0.29", t0.Add(3*time.Hour), shariah.SourceFiling))
	got := changesOf(t, store)
	if len(got) != 2 {
		t.Fatalf("%d changes, want 2: %+v", len(got), got)
	}
	c := got[0]
	if c.Symbol != "AAPL" || c.Ruleset != "spec" || !slices.Equal(c.Kinds, []string{screening.ChangeOverall, screening.ChangeMethodology}) ||
		c.Before.ComplianceStatus != "COMPLIANT" || c.After.ComplianceStatus != "QUESTIONABLE" ||
		c.Before.Methodologies["AAOIFI"] != "compliant" || c.After.Methodologies["AAOIFI"] != "non_compliant" ||
		c.Before.ScreenedAt != t0 || !c.At.Equal(t0.Add(2*time.Hour)) || c.Cause.Kind != screening.CauseBulkRun || c.Cause.RunID != "run-1" {
		t.Fatalf("first change: %+v", c)
	}
	// The baseline stayed at the first screening's state (the unchanged rescreen did not move it): the
	// crossed ratio's before is its value then.
	if len(c.Crossed) != 1 || c.Crossed[0].Methodology != "AAOIFI" || c.Crossed[0].Ratio != "debt" ||
		c.Crossed[0].Before.String() != "0.25" || c.Crossed[0].After.String() != "0.31" || c.Crossed[0].ThresholdBP.String() != "3000" ||
		!c.Crossed[0].PassBefore || c.Crossed[0].PassAfter {
		t.Fatalf("crossed ratios: %+v", c.Crossed)
	}
	c2 := got[1]
	if !slices.Equal(c2.Kinds, []string{screening.ChangeOverall, screening.ChangeMethodology, screening.ChangeDataSource}) ||
		c2.Before.ScreenedAt != c.After.ScreenedAt || c2.Before.DataSource != shariah.DataIllustrative || c2.After.DataSource != shariah.DataFiled ||
		c2.Cause.Kind != screening.CauseFiling || !slices.Equal(c2.Cause.Filings, []string{"0000320193-25-000079"}) {
		t.Fatalf("second change: %+v", c2)
	}
	if screening.CompareChangeIDs(c.ID, c2.ID) >= 0 {
		t.Fatalf("ids not increasing: %s, %s", c.ID, c2.ID)
	}
}

// A result stored before change events existed (no baseline) is measured against the result it
// replaces; a change that could not be recorded (the baseline left behind) is recorded at the next
// write, against the last state recorded.
func TestResultStoreChangeWithoutBaseline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rc := setup(t, testsvc.MustRedis(t).RedisURL()).client
	store := sredis.NewResultStore(rc)
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	if err := store.PutResult(ctx, verdictResult("MSFT", "0.10", t0, shariah.SourceIllustrative), 1); err != nil {
		t.Fatal(err)
	}
	if err := rc.Do(ctx, rc.B().Del().Key("shr:changes:baseline:{MSFT}").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if err := store.PutResult(ctx, verdictResult("MSFT", "0.40", t0.Add(time.Hour), shariah.SourceIllustrative), 1); err != nil {
		t.Fatal(err)
	}
	got := changesOf(t, store)
	if len(got) != 1 || got[0].Before.ScreenedAt != t0 || got[0].After.Methodologies["AAOIFI"] != "non_compliant" {
		t.Fatalf("changes: %+v", got)
	}
	// The baseline now holds the recorded state: rescreening it unchanged records nothing more.
	if err := store.PutResult(ctx, verdictResult("MSFT", "0.45", t0.Add(2*time.Hour), shariah.SourceIllustrative), 1); err != nil {
		t.Fatal(err)
	}
	if got := changesOf(t, store); len(got) != 1 {
		t.Fatalf("%d changes after an unchanged rescreen, want 1", len(got))
	}
}

// The change log drops changes older than its retention when it records a new one, and notes the
// newest one dropped: ChangesAfter reports it, so the feed can refuse a cursor before it.
func TestChangeLogRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rc := setup(t, testsvc.MustRedis(t).RedisURL()).client
	now := time.Now()
	store := sredis.NewResultStore(rc).WithChangeRetention(24 * time.Hour).WithClock(func() time.Time { return now })
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	flip := func(sym string, i int) {
		t.Helper()
		debt := []string{"0.1", "0.5"}[i%2]
		if err := store.PutResult(ctx, verdictResult(sym, debt, t0.Add(time.Duration(i)*time.Hour), shariah.SourceIllustrative), 1); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		flip("KO", i)
	}
	scan, err := store.ChangesAfter(ctx, screening.CursorStart, 100, nil)
	old := scan.Changes
	if err != nil || len(old) != 3 || scan.Trimmed != "" || scan.Looked != 3 || scan.Last != old[2].ID {
		t.Fatalf("before the retention passed: %+v, %v", scan, err)
	}
	// A filter decodes only the changes it keeps, and says how far it looked.
	if scan, err := store.ChangesAfter(ctx, old[0].ID, 100, func(sym string) bool { return sym == "NONE" }); err != nil ||
		len(scan.Changes) != 0 || scan.Looked != 2 || scan.Last != old[2].ID {
		t.Fatalf("filtered: %+v, %v", scan, err)
	}
	now = now.Add(25 * time.Hour) // every change recorded so far is past the retention
	flip("KO", 4)
	scan, err = store.ChangesAfter(ctx, screening.CursorStart, 100, nil)
	if err != nil || len(scan.Changes) != 1 || scan.Trimmed != old[2].ID {
		t.Fatalf("after the retention passed: %+v (want trimmed %s), %v", scan, old[2].ID, err)
	}
	if after, err := store.ChangesAfter(ctx, old[2].ID, 100, nil); err != nil || len(after.Changes) != 1 || after.Changes[0].ID != scan.Changes[0].ID {
		t.Fatalf("after the newest dropped: %+v %v", after, err)
	}
}

// changeLogKeysShareASlot is the cluster case of the change scripts (TestEveryScriptOnRedisCluster).
func changeLogOnCluster(t *testing.T, rc rueidis.Client) {
	t.Helper()
	ctx := context.Background()
	store := sredis.NewResultStore(rc)
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	for i, sym := range []string{"AAPL", "MSFT", "NVDA"} {
		for j, debt := range []string{"0.1", "0.5"} {
			if err := store.PutResult(ctx, verdictResult(sym, debt, t0.Add(time.Duration(i*2+j)*time.Minute), shariah.SourceIllustrative), 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := changesOf(t, store); len(got) != 3 {
		t.Fatalf("%d changes on the cluster, want 3", len(got))
	}
	// Retention: a store whose clock is a year on drops the three when it records the next.
	later := store.WithClock(func() time.Time { return time.Now().Add(365 * 24 * time.Hour) })
	if err := later.PutResult(ctx, verdictResult("AAPL", "0.1", t0.Add(time.Hour), shariah.SourceIllustrative), 1); err != nil {
		t.Fatal(err)
	}
	if scan, err := later.ChangesAfter(ctx, screening.CursorStart, 10, nil); err != nil || len(scan.Changes) != 1 || scan.Trimmed == "" {
		t.Fatalf("after the retention on the cluster: %+v, %v", scan, err)
	}
}

// A change the log refuses (here: its key holds a string, so XADD fails) does not fail the write; the
// store reports it, the baseline stays, and the symbol's next write records the change against the
// last state recorded: nothing is lost, only delayed.
func TestChangeNotRecordedIsRecordedAtTheNextWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rc := setup(t, testsvc.MustRedis(t).RedisURL()).client
	var reported []error
	store := sredis.NewResultStore(rc).OnChangeError(func(err error) { reported = append(reported, err) })
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	put := func(debt string, at time.Duration) {
		t.Helper()
		if err := store.PutResult(ctx, verdictResult("KO", debt, t0.Add(at), shariah.SourceIllustrative), 1); err != nil {
			t.Fatal(err)
		}
	}
	put("0.10", 0)
	if err := rc.Do(ctx, rc.B().Set().Key("shr:changes:{changes}").Value("not a stream").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	put("0.40", time.Hour)
	if r, _, ok, err := store.Result(ctx, "KO", "spec"); err != nil || !ok || !r.ScreenedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("the result was not stored: %v %v", ok, err)
	}
	if len(reported) != 1 {
		t.Fatalf("%d errors reported, want 1", len(reported))
	}
	if err := rc.Do(ctx, rc.B().Del().Key("shr:changes:{changes}").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	put("0.45", 2*time.Hour)
	got := changesOf(t, store)
	if len(got) != 1 || got[0].Before.ScreenedAt != t0 || !got[0].After.ScreenedAt.Equal(t0.Add(2*time.Hour)) ||
		got[0].Before.Methodologies["AAOIFI"] != "compliant" || got[0].After.Methodologies["AAOIFI"] != "non_compliant" {
		t.Fatalf("changes after the log came back: %+v", got)
	}
}

// A Redis that lost its scripts (SCRIPT FLUSH, as after a restart) answers the pipelined EVALSHA with
// NOSCRIPT: the write runs the script again with EVAL, and the change is recorded.
func TestPutResultAfterScriptFlush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rc := setup(t, testsvc.MustRedis(t).RedisURL()).client
	store := sredis.NewResultStore(rc)
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	if err := store.PutResult(ctx, verdictResult("PEP", "0.10", t0, shariah.SourceIllustrative), 1); err != nil {
		t.Fatal(err)
	}
	if err := rc.Do(ctx, rc.B().ScriptFlush().Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if err := store.PutResult(ctx, verdictResult("PEP", "0.40", t0.Add(time.Hour), shariah.SourceIllustrative), 1); err != nil {
		t.Fatal(err)
	}
	if got := changesOf(t, store); len(got) != 1 || got[0].Symbol != "PEP" {
		t.Fatalf("changes after SCRIPT FLUSH: %+v", got)
	}
}
