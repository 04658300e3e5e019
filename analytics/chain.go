package analytics

import (
	"context"
	"fmt"
)

// Migration 007 feeds four of migration 003's aggregates from usage_hourly instead of from every raw row:
// usage_route_hourly, usage_key_hourly, usage_route_daily and usage_key_daily each get a materialized
// view over usage_hourly (a "chained" view: it fires on the rows usage_hourly_mv writes into usage_hourly,
// a few per user, key, route and hour of an insert, not on the insert's every event) that merges their
// states into its own grain with the -MergeState combinators. Their finalized values are those of the
// direct views exactly (counts and sums add; a quantilesTiming state is a function of the multiset of
// its values, and merging states unions the multisets): TestChainedViewsEqualDirectViews. usage_hourly
// itself and usage_quota_daily (per second of the first event, and only the rows of a refusal or an
// overage, which usage_hourly does not tell apart) keep their views over usage_events.
//
// A view sees the inserts that begin after it exists, and an insert keeps the views that existed when it
// began: dropping a direct view and creating its chained one while edges insert would lose or double the
// events of the inserts in between. So the switch happens while inserts are paused:
//
//  1. pause: RENAME usage_events TO usage_events_paused, usage_events_stub TO usage_events (one
//     statement), the stub being a Merge table over usage_events_paused made just before (same columns).
//     Inserts fail from then on ("Method write is not supported by storage Merge": nothing written) and
//     each edge's usage spool keeps its batch and ships it after the resume, exactly once (its lookup
//     asks ClickHouse what is stored after any failed insert; writer.go). Reads of usage_events (the
//     edge's usage history, the spool's lookups) go on through the stub. Why a stub and not a bare
//     RENAME away: 18.16's RENAME waits for the running inserts, and an insert that had found the table
//     and queued behind the RENAME then writes its rows into the renamed table and fails in its views
//     ("Table usage_events doesn't exist.: while pushing to view"), so its rows are stored and never
//     counted by the aggregates (seen in TestChainResumesAfterACrashBetweenSteps, and by hand); with a
//     table of that name in place the queued insert's views run (checked by hand: every row counted);
//  2. drain: waits until no insert that began before this step is still running (on every server of a
//     cluster), as migration 006 does: such an insert counts its events through the views it began with;
//  3. switch, per aggregate: DROP the direct view (IF EXISTS), CREATE the chained one (IF NOT EXISTS);
//  4. resume: RENAME usage_events TO usage_events_stub, usage_events_paused TO usage_events, then DROP
//     the stub. The views name usage_events and fire for it again (18.16 keeps a view's source by name).
//
// Every step is decided by what the server holds: usage_events is a Merge table while paused (a run
// that stopped anywhere from 1 to 4 continues there: the drain, the switches that are left, the
// resume), and a database whose four chained views exist and whose direct ones are gone is done (a stub
// left by a resume that stopped before its DROP is dropped). Cluster form
// (DB.Cluster): the same on usage_events_local, each DDL ON CLUSTER; the chained views read the rows
// usage_hourly_mv writes into usage_hourly_local and write the aggregates' local tables, on the server
// where the insert landed (inserts of a materialized view into its table do not deduplicate, and a part
// fetched by replication fires no view: each block is counted once, on one replica; TestChainOnACluster).

// chainedView is one aggregate's view over usage_hourly and the direct view it replaces.
type chainedView struct {
	target, direct, name string
	sel, group           string // the aggregate's grain from usage_hourly's columns, and its GROUP BY
}

var chainedViews = []chainedView{
	{"usage_route_hourly", "usage_route_hourly_mv", "usage_route_hourly_chained_mv", "hour, route, method, plan", "hour, route, method, plan"},
	{"usage_key_hourly", "usage_key_hourly_mv", "usage_key_hourly_chained_mv", "hour, key_id, user_id, key_prefix, plan", "hour, key_id, user_id, key_prefix, plan"},
	{"usage_route_daily", "usage_route_daily_mv", "usage_route_daily_chained_mv", "toStartOfDay(hour) AS day, route, method, plan", "day, route, method, plan"},
	{"usage_key_daily", "usage_key_daily_mv", "usage_key_daily_chained_mv", "toStartOfDay(hour) AS day, key_id, user_id, key_prefix, plan", "day, key_id, user_id, key_prefix, plan"},
}

// The source a chained view must name differs between ClickHouse versions. 18.16 runs, for the rows a
// materialized view writes, the views that select FROM that view (by its name), not those that select
// FROM its TO table (tested: TestChainedViewsEqualDirectViews, and by hand: a view FROM the TO table
// never fires); releases since 19.x run those FROM the TO table instead (ClickHouse issue 7195). The
// migration asks the server which it does (chainSource) rather than trusting a version number.
// Upgrade hazard: views made on 18.16 name usage_hourly_mv, and a server upgraded past that change no
// longer runs them (the four aggregates would stop growing); such an upgrade must recreate them FROM
// usage_hourly, under the same pause. Likewise, on 18.16, DETACH of usage_hourly_mv stops the chain.
const (
	chainFromView  = "usage_hourly_mv"
	chainFromTable = "usage_hourly"
)

// createChained is the statement creating the chained view, reading from (chainFromView or chainFromTable);
// on a cluster, the local tables (the view usage_hourly_mv has one name on every server).
func (db *DB) createChained(v chainedView, from string) string {
	target := v.target
	if db.Cluster != "" {
		target += "_local"
		if from == chainFromTable {
			from += "_local"
		}
	}
	return "CREATE MATERIALIZED VIEW IF NOT EXISTS " + db.table(v.name) + db.on() + " TO " + db.table(target) + " AS\n" +
		"SELECT " + v.sel + ",\n" +
		"    countMergeState(requests) AS requests, sumMergeState(tokens) AS tokens, sumMergeState(overage) AS overage,\n" +
		"    sumMergeState(errors_4xx) AS errors_4xx, sumMergeState(errors_5xx) AS errors_5xx,\n" +
		"    quantilesTimingMergeState(0.5, 0.95, 0.99)(latency) AS latency\n" +
		"FROM " + db.table(from) + "\n" +
		"GROUP BY " + v.group
}

// chainSource finds which source a view must select from to see the rows another view writes: it makes
// two views over a probe view's rows, one FROM the probe view and one FROM its TO table, inserts one row
// and sees which fired (Memory tables on this server only, dropped after; every server of a cluster is
// taken to run the same version). Where both fire, the TO table (current releases' form).
func (db *DB) chainSource(ctx context.Context) (string, error) {
	p := func(name string) string { return db.table("chain_probe_" + name) }
	drop := func() error {
		for _, n := range []string{"by_view_mv", "by_table_mv", "mv", "by_view", "by_table", "mid", "src"} {
			if err := db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+p(n)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := drop(); err != nil {
		return "", err
	}
	stmts := []string{}
	for _, n := range []string{"src", "mid", "by_view", "by_table"} {
		stmts = append(stmts, "CREATE TABLE "+p(n)+" (x UInt8) ENGINE = Memory")
	}
	stmts = append(stmts,
		"CREATE MATERIALIZED VIEW "+p("mv")+" TO "+p("mid")+" AS SELECT x FROM "+p("src"),
		"CREATE MATERIALIZED VIEW "+p("by_view_mv")+" TO "+p("by_view")+" AS SELECT x FROM "+p("mv"),
		"CREATE MATERIALIZED VIEW "+p("by_table_mv")+" TO "+p("by_table")+" AS SELECT x FROM "+p("mid"),
		"INSERT INTO "+p("src")+" (x) SELECT 1")
	for _, q := range stmts {
		if err := db.Conn.Exec(ctx, q); err != nil {
			return "", fmt.Errorf("chained view probe: %s: %w", q, err)
		}
	}
	var byView, byTable uint64
	err := db.Conn.QueryRow(ctx, "SELECT (SELECT toUInt64(count()) FROM "+p("by_view")+"), (SELECT toUInt64(count()) FROM "+p("by_table")+")").Scan(&byView, &byTable)
	if err != nil {
		return "", fmt.Errorf("chained view probe: %w", err)
	}
	if err := drop(); err != nil {
		return "", err
	}
	switch {
	case byTable > 0:
		return chainFromTable, nil
	case byView > 0:
		return chainFromView, nil
	}
	return "", fmt.Errorf("this ClickHouse runs no view over the rows a materialized view writes (neither FROM the view nor FROM its TO table): chained views cannot work")
}

// tableExists reports whether the database has a table (or view) of that name on this server.
func (db *DB) tableExists(ctx context.Context, name string) (bool, error) {
	var n uint64
	err := db.Conn.QueryRow(ctx, "SELECT toUInt64(count()) FROM system.tables WHERE database = ? AND name = ?", db.Name, name).Scan(&n)
	return n > 0, err
}

// viewSwitched reports whether an aggregate is fed by its chained view only.
func (db *DB) viewSwitched(ctx context.Context, v chainedView) (bool, error) {
	direct, err := db.tableExists(ctx, v.direct)
	if err != nil || direct {
		return false, err
	}
	return db.tableExists(ctx, v.name)
}

func (db *DB) chainUsageViews(ctx context.Context, hook func(step string) error) error {
	step := func(name string) error {
		if hook != nil {
			return hook(name)
		}
		return nil
	}
	data := db.usageData()
	paused, stub := data+"_paused", data+"_stub"
	engine, err := db.engine(ctx, data)
	if err != nil {
		return err
	}
	held, err := db.tableExists(ctx, paused)
	if err != nil {
		return err
	}
	switch {
	case engine == "":
		return fmt.Errorf("no %s", db.table(data))
	case engine == "Merge" && !held:
		return fmt.Errorf("%s is a Merge table and %s does not exist: made by hand?", db.table(data), db.table(paused))
	case engine != "Merge" && held:
		return fmt.Errorf("both %s and %s exist: one of them was made by hand", db.table(data), db.table(paused))
	case engine != "Merge":
		done := true
		for _, v := range chainedViews {
			ok, err := db.viewSwitched(ctx, v)
			if err != nil {
				return err
			}
			done = done && ok
		}
		if done { // the resume renamed the stub back, and may have stopped before dropping it
			return db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+db.table(stub)+db.on())
		}
		if err := step("pause"); err != nil {
			return err
		}
		if err := db.Conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+db.table(stub)+db.on()+" AS "+db.table(data)+
			" ENGINE = Merge("+db.Name+", '^"+paused+"$')"); err != nil {
			return fmt.Errorf("pause: %w", err)
		}
		if err := db.Conn.Exec(ctx, "RENAME TABLE "+db.table(data)+" TO "+db.table(paused)+", "+db.table(stub)+" TO "+db.table(data)+db.on()); err != nil {
			return fmt.Errorf("pause: %w", err)
		}
	}
	if err := step("drain"); err != nil {
		return err
	}
	if err := db.drainInserts(ctx); err != nil {
		return err
	}
	from := ""
	for _, v := range chainedViews {
		if ok, err := db.viewSwitched(ctx, v); err != nil {
			return err
		} else if ok {
			continue
		}
		if err := step("switch " + v.target); err != nil {
			return err
		}
		if from == "" {
			if from, err = db.chainSource(ctx); err != nil {
				return err
			}
		}
		if err := db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+db.table(v.direct)+db.on()); err != nil {
			return fmt.Errorf("drop %s: %w", v.direct, err)
		}
		if err := db.Conn.Exec(ctx, db.createChained(v, from)); err != nil {
			return fmt.Errorf("create %s: %w", v.name, err)
		}
	}
	if err := step("resume"); err != nil {
		return err
	}
	if err := db.Conn.Exec(ctx, "RENAME TABLE "+db.table(data)+" TO "+db.table(stub)+", "+db.table(paused)+" TO "+db.table(data)+db.on()); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	return db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+db.table(stub)+db.on())
}

// engine is a table's engine on this server, "" when it does not exist.
func (db *DB) engine(ctx context.Context, table string) (string, error) {
	rows, err := db.Conn.Query(ctx, "SELECT engine FROM system.tables WHERE database = ? AND name = ?", db.Name, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var e string
	if rows.Next() {
		err = rows.Scan(&e)
	}
	if err == nil {
		err = rows.Err()
	}
	return e, err
}
