package edge_test

import (
	"context"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/bulk"
)

// generousFree is the default plans with a Free allowance large enough for a test's many calls (the
// rules under test are about accounts, not allowances).
func generousFree() account.Plans {
	plans := account.DefaultPlans().WithoutRateLimits()
	for i := range plans {
		if plans[i].ID == account.PlanFree {
			plans[i].TokensPerMonth = 100000
		}
	}
	return plans
}

// runKeys lists every Redis key whose name contains the run id (SCAN over the whole keyspace).
func runKeys(t *testing.T, e *env, id string) []string {
	t.Helper()
	var out []string
	cursor := uint64(0)
	for {
		entry, err := e.rc.Do(context.Background(), e.rc.B().Scan().Cursor(cursor).Match("*"+id+"*").Count(1000).Build()).AsScanEntry()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry.Elements...)
		if cursor = entry.Cursor; cursor == 0 {
			return out
		}
	}
}

func runIDs(t *testing.T, m map[string]any) []string {
	var ids []string
	for _, r := range m["runs"].([]any) {
		ids = append(ids, r.(map[string]any)["run_id"].(string))
	}
	return ids
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestBulkRunOwnership: a run belongs to the account that started it. Another account gets the same
// 404 as for an unknown run on every run route (status, results, summary, both exports, compare,
// cancel, delete) and does not see it in its history; a scheduled rescreen is readable by every key
// but managed only by operators; an operator key sees and deletes every run.
func TestBulkRunOwnership(t *testing.T) {
	t.Parallel()
	e := setup(t, options{plans: generousFree()})
	ctx := context.Background()
	a, b, op := key(e.newKey(t, account.PlanFree)), key(e.newKey(t, account.PlanFree)), key(e.newKey(t, account.PlanInternal))
	putIndex(t, e, "OWNA", "MSFT", "JPM")
	putIndex(t, e, "OWNB", "NVDA")
	putIndex(t, e, "OWNS", "TSLA", "MO")
	start := func(k hdr, index string) string {
		t.Helper()
		r := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": index}, k)
		if r.StatusCode != 202 {
			t.Fatalf("start %s: %d %s", index, r.StatusCode, r.body)
		}
		id := r.json(t)["run_id"].(string)
		if err := e.bulk.Execute(ctx, id); err != nil { // the worker's part
			t.Fatal(err)
		}
		return id
	}
	runA := start(a, "OWNA")
	sched, err := e.bulk.StartRun(ctx, shariah.ServiceCaller, "OWNS", 0, false, "", "schedule")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.bulk.Execute(ctx, sched.ID); err != nil {
		t.Fatal(err)
	}
	runS := sched.ID
	runB := start(b, "OWNB")

	// Every run route, for a run id: B on A's run answers exactly what an unknown run answers.
	unknown := "0190c0de-0000-7000-8000-000000000000"
	routes := func(id, other string) [][2]string {
		return [][2]string{
			{"GET", "/api/screen-bulk/status?run_id=" + id},
			{"GET", "/api/screen-bulk/" + id + "/results"},
			{"GET", "/api/screen-bulk/" + id + "/summary"},
			{"GET", "/api/screen-bulk/" + id + "/export/csv"},
			{"GET", "/api/screen-bulk/" + id + "/export/json"},
			{"GET", "/api/screen-bulk/compare?run_a=" + id + "&run_b=" + other},
			{"GET", "/api/screen-bulk/compare?run_a=" + other + "&run_b=" + id},
			{"POST", "/api/screen-bulk/" + id + "/cancel"},
			{"DELETE", "/api/screen-bulk/" + id},
		}
	}
	want := routes(unknown, runB)
	for i, rt := range routes(runA, runB) {
		got := e.do(t, rt[0], rt[1], nil, b)
		ref := e.do(t, want[i][0], want[i][1], nil, b)
		gm, rm := got.json(t), ref.json(t)
		if got.StatusCode != 404 || ref.StatusCode != 404 || gm["code"] != rm["code"] ||
			strings.ReplaceAll(gm["message"].(string), runA, unknown) != rm["message"] {
			t.Errorf("B %s %s: %d %s; unknown run: %d %s", rt[0], rt[1], got.StatusCode, got.body, ref.StatusCode, ref.body)
		}
		if strings.Contains(string(got.body), "OWNA") {
			t.Errorf("B %s %s reveals A's run: %s", rt[0], rt[1], got.body)
		}
	}
	// B's attempts changed nothing: A still reads its completed run.
	if r := e.do(t, "GET", "/api/screen-bulk/status?run_id="+runA, nil, a).json(t); r["status"] != "completed" || r["scheduled"] != false {
		t.Fatalf("A's run after B's attempts: %v", r)
	}
	// The scheduled run: every key reads it; only an operator may cancel or delete it.
	for _, k := range []hdr{a, b} {
		if r := e.do(t, "GET", "/api/screen-bulk/"+runS+"/results", nil, k); r.StatusCode != 200 || r.json(t)["total"] != 2.0 {
			t.Fatalf("scheduled run results: %d %s", r.StatusCode, r.body)
		}
		if r := e.do(t, "GET", "/api/screen-bulk/compare?run_a="+runS+"&run_b="+runS, nil, k); r.StatusCode != 200 {
			t.Fatalf("compare with the scheduled run: %d %s", r.StatusCode, r.body)
		}
		if r := e.do(t, "DELETE", "/api/screen-bulk/"+runS, nil, k); r.StatusCode != 403 || r.errCode(t) != shariah.EFORBIDDEN {
			t.Fatalf("a free key deleted the scheduled run: %d %s", r.StatusCode, r.body)
		}
	}
	if r := e.do(t, "GET", "/api/screen-bulk/status?run_id="+runS, nil, b).json(t); r["scheduled"] != true || r["trigger"] != "schedule" {
		t.Fatalf("scheduled run: %v", r)
	}
	// Histories: the caller's runs and the scheduled one; total counts only those.
	hist := func(k hdr, q string) map[string]any { return e.do(t, "GET", "/api/screen-bulk/runs"+q, nil, k).json(t) }
	hb := hist(b, "")
	if ids := runIDs(t, hb); hb["total"] != 2.0 || len(ids) != 2 || !has(ids, runB) || !has(ids, runS) || has(ids, runA) {
		t.Fatalf("B's history: total %v, %v", hb["total"], ids)
	}
	if hp := hist(b, "?page_size=1&page=2"); hp["total"] != 2.0 || len(runIDs(t, hp)) != 1 {
		t.Fatalf("B's history page 2: %v", hp)
	}
	if ha := hist(a, "?status=completed"); ha["total"] != 2.0 || has(runIDs(t, ha), runB) {
		t.Fatalf("A's history: %v", ha)
	}
	if hx := hist(b, "?index_name=OWNA"); hx["total"] != 0.0 {
		t.Fatalf("B's history of A's index: %v", hx)
	}
	if r := e.do(t, "GET", "/api/screen-bulk/status", nil, b).json(t); r["run_id"] == runA {
		t.Fatal("B's current run is A's")
	}
	// The operator sees every run and deletes them all.
	ho := hist(op, "")
	if ids := runIDs(t, ho); ho["total"] != 3.0 || !has(ids, runA) || !has(ids, runB) || !has(ids, runS) {
		t.Fatalf("operator's history: %v", ho)
	}
	if r := e.do(t, "GET", "/api/screen-bulk/"+runA+"/export/json", nil, op); r.StatusCode != 200 {
		t.Fatalf("operator reads A's run: %d", r.StatusCode)
	}
	for _, id := range []string{runA, runB, runS} {
		if r := e.do(t, "DELETE", "/api/screen-bulk/"+id, nil, op); r.StatusCode != 200 {
			t.Fatalf("operator delete %s: %d %s", id, r.StatusCode, r.body)
		}
		if left := runKeys(t, e, id); len(left) != 0 {
			t.Fatalf("keys of %s left after delete: %v", id, left)
		}
	}
	if r := e.do(t, "GET", "/api/screen-bulk/status?run_id="+runA, nil, a); r.StatusCode != 404 {
		t.Fatalf("A's run after the operator deleted it: %d", r.StatusCode)
	}
	if ho := hist(op, ""); ho["total"] != 0.0 {
		t.Fatalf("history after deleting every run: %v", ho)
	}
}

// TestBulkRunDeleteOnlyWhenFinished: delete is 409 naming the state on a queued, running or stalled
// run, even for its owner or an operator; a stalled run can be cancelled; once cancelled it is deleted
// with every key of it, and a worker that carries on writing afterwards (a result, progress, the
// final status, its lease) recreates nothing.
func TestBulkRunDeleteOnlyWhenFinished(t *testing.T) {
	t.Parallel()
	e := setup(t, options{plans: generousFree()})
	ctx := context.Background()
	a, op := key(e.newKey(t, account.PlanFree)), key(e.newKey(t, account.PlanInternal))
	putIndex(t, e, "DELX", "MSFT", "JPM", "NVDA")
	r := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "DELX"}, a)
	if r.StatusCode != 202 {
		t.Fatalf("start: %d %s", r.StatusCode, r.body)
	}
	id := r.json(t)["run_id"].(string)
	refused := func(state string) {
		t.Helper()
		for _, k := range []hdr{a, op} {
			d := e.do(t, "DELETE", "/api/screen-bulk/"+id, nil, k)
			m := d.json(t)
			detail, _ := m["detail"].(map[string]any)
			if d.StatusCode != 409 || !strings.Contains(m["message"].(string), state) || detail["status"] != state {
				t.Fatalf("delete of a %s run: %d %s", state, d.StatusCode, d.body)
			}
		}
		if st := e.do(t, "GET", "/api/screen-bulk/status?run_id="+id, nil, a).json(t); st["status"] != state {
			t.Fatalf("status: %v, want %s", st["status"], state)
		}
	}
	refused("queued")
	// A worker takes the run: its lease held, the run is running.
	runs := e.bulk.Runs
	if ok, err := runs.AcquireLease(ctx, id, "worker-1", 10*time.Second); err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	if ok, err := runs.SetStatus(ctx, id, bulk.Running, []string{bulk.Queued}, time.Now(), ""); err != nil || !ok {
		t.Fatalf("running: %v %v", ok, err)
	}
	if ok, err := runs.PutItem(ctx, id, bulk.Item{Symbol: "JPM", Status: "NON_COMPLIANT"}); err != nil || !ok {
		t.Fatalf("first item: %v %v", ok, err)
	}
	refused("running")
	// Its heartbeat stops (the lease gone): stalled, still not deletable, but cancellable.
	if err := runs.ReleaseLease(ctx, id, "worker-1"); err != nil {
		t.Fatal(err)
	}
	refused("stalled")
	if c := e.do(t, "POST", "/api/screen-bulk/"+id+"/cancel", nil, a); c.StatusCode != 200 || c.json(t)["run"].(map[string]any)["status"] != "cancelled" {
		t.Fatalf("cancel a stalled run: %d %s", c.StatusCode, c.body)
	}
	if d := e.do(t, "DELETE", "/api/screen-bulk/"+id, nil, a); d.StatusCode != 200 {
		t.Fatalf("delete a cancelled run: %d %s", d.StatusCode, d.body)
	}
	if left := runKeys(t, e, id); len(left) != 0 {
		t.Fatalf("keys left after delete: %v", left)
	}
	// The worker finishes its symbol and the run as it would after a cancel and a delete.
	if ok, err := runs.PutItem(ctx, id, bulk.Item{Symbol: "MSFT", Status: "COMPLIANT"}); err != nil || ok {
		t.Fatalf("a result written to a deleted run: %v %v", ok, err)
	}
	if err := runs.SetProgress(ctx, id, "MSFT", 2, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ok, err := runs.SetStatus(ctx, id, bulk.Completed, []string{bulk.Running}, time.Now(), ""); err != nil || ok {
		t.Fatalf("completed a deleted run: %v %v", ok, err)
	}
	for _, lease := range []func(context.Context, string, string, time.Duration) (bool, error){runs.RenewLease, runs.AcquireLease} {
		if ok, err := lease(ctx, id, "worker-1", 10*time.Second); err != nil || ok {
			t.Fatalf("a lease on a deleted run: %v %v", ok, err)
		}
	}
	if err := runs.ReleaseIndex(ctx, "DELX", id); err != nil {
		t.Fatal(err)
	}
	if left := runKeys(t, e, id); len(left) != 0 {
		t.Fatalf("keys recreated by the worker after delete: %v", left)
	}
	if _, ok, err := runs.Run(ctx, id); err != nil || ok {
		t.Fatalf("the deleted run reads back: %v %v", ok, err)
	}
}

// TestBulkRunDeletedUnderARealWorker: a run executing in a worker (paced, one symbol at a time) is
// cancelled and deleted mid-run; when the worker returns, no key of the run exists.
func TestBulkRunDeletedUnderARealWorker(t *testing.T) {
	t.Parallel()
	e := setup(t, options{plans: generousFree()})
	ctx := context.Background()
	owner := e.newKey(t, account.PlanFree)
	a := key(owner)
	e.bulk.Pause, e.bulk.Concurrency = 200*time.Millisecond, 1
	r, err := e.bulk.StartRun(ctx, account.CallerOf(owner.Record), "SP500", 0, true, "", "api")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.bulk.Execute(ctx, r.ID) }()
	deadline := time.Now().Add(20 * time.Second)
	for e.do(t, "GET", "/api/screen-bulk/status?run_id="+r.ID, nil, a).json(t)["processed"].(float64) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("run made no progress")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := e.do(t, "DELETE", "/api/screen-bulk/"+r.ID, nil, a); d.StatusCode != 409 || d.json(t)["detail"].(map[string]any)["status"] != "running" {
		t.Fatalf("delete of the running run: %d %s", d.StatusCode, d.body)
	}
	if c := e.do(t, "POST", "/api/screen-bulk/"+r.ID+"/cancel", nil, a); c.StatusCode != 200 {
		t.Fatalf("cancel: %d", c.StatusCode)
	}
	if d := e.do(t, "DELETE", "/api/screen-bulk/"+r.ID, nil, a); d.StatusCode != 200 {
		t.Fatalf("delete: %d %s", d.StatusCode, d.body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if left := runKeys(t, e, r.ID); len(left) != 0 {
		t.Fatalf("keys left once the worker returned: %v", left)
	}
}

// TestBulkRunWorkerStopsWhenItsLeaseIsTaken: a worker that stopped heartbeating long enough for another
// to take its run over (frozen, cut off) stops at its next heartbeat instead of working the run twice,
// and leaves the new holder's lease alone.
func TestBulkRunWorkerStopsWhenItsLeaseIsTaken(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	ctx := context.Background()
	e.bulk.Pause, e.bulk.Concurrency, e.bulk.Lease = 100*time.Millisecond, 1, time.Second
	r, err := e.bulk.StartRun(ctx, shariah.Caller{UserID: "lease-test"}, "SP500", 0, true, "", "api")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.bulk.Execute(ctx, r.ID) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cur, _, err := e.bulk.Runs.Run(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Processed >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("run made no progress")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Another worker holds the lease now (as after the first one's lease expired).
	leaseKey := "shr:run:{" + r.ID + "}:lease"
	if err := e.rc.Do(ctx, e.rc.B().Set().Key(leaseKey).Value("worker-2").Px(time.Minute).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the displaced worker returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the displaced worker did not stop")
	}
	if holder, err := e.rc.Do(ctx, e.rc.B().Get().Key(leaseKey).Build()).ToString(); err != nil || holder != "worker-2" {
		t.Fatalf("lease after the displaced worker stopped: %q %v", holder, err)
	}
	cur, err := e.bulk.Get(ctx, shariah.Caller{UserID: "lease-test"}, r.ID)
	if err != nil || cur.Status != bulk.Running || cur.Processed >= cur.Total {
		t.Fatalf("run after the displaced worker stopped: %+v %v", cur, err)
	}
}
