package analytics

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Migration 006 re-keys usage_events from (user_id, ts, request_id) to (user_id, ts, event_id): an
// insert or merge no longer sorts on 36-character request ids (about a fifth of what the table costs
// ClickHouse per event, insert and merge; see BenchmarkUsageInsertCPUBeforeAndAfterRekey), and the
// exactly-once lookups (UsageWriter.alreadyShipped) are point lookups on the key. 18.16 cannot change a sorting key in place, so the migration builds a new table and
// moves the rows, while edges keep inserting:
//
//  1. create: usage_events_rekey, usage_events' columns under the new key (IF NOT EXISTS);
//  2. swap: RENAME usage_events TO usage_events_prekey, usage_events_rekey TO usage_events, one
//     statement. Inserts go to the new table from then on; the materialized views of migration 003 name
//     usage_events and fire for the table of that name, the new one (18.16 keeps a view's source by name;
//     tested). An insert meeting neither name (between the two renames) fails, and the usage spool holds
//     its batch and ships it later;
//  3. drain: waits until no insert that began before the swap is still running (system.processes), so
//     nothing more lands in usage_events_prekey;
//  4. per month of usage_events_prekey: stage (copy the month into usage_events_copy, a table without
//     views, after dropping whatever a stopped run left there), then attach (ALTER TABLE usage_events
//     ATTACH PARTITION ... FROM usage_events_copy: the rows join usage_events in one step, and no view
//     fires, so the aggregates, which hold these rows already, do not count them again). A month is done
//     when usage_events holds its first row (on the old key): the check that makes a rerun skip it;
//  5. drop: usage_events_prekey and usage_events_copy.
//
// Every step is idempotent and decided by what the server holds (which tables exist, under which key,
// which months' first rows are in usage_events), so a run stopped between any two steps, or inside one,
// is completed by the next run (TestRekeyResumesAfterACrashBetweenSteps). Rows of the old table without an
// event id (written before migration 005) get cityHash64 of their request id, key, time in ms, route and
// latency, so that the check of step 4 finds them; rows with one keep it.
//
// Cluster form (DB.Cluster): the same steps on usage_events_local, each DDL ON CLUSTER; the new table is
// ReplicatedMergeTree at its own ZooKeeper path (…/usage_events_local_rekey, kept after the rename); the
// Distributed usage_events names usage_events_local and so reads and writes the new table after the swap.
// The copy runs on the server connected to: its staging table is local (not replicated) and the
// replicated ATTACH PARTITION ... FROM carries the parts to the other replicas. The drain asks every
// server of the cluster (remote()). One shard: each shard's rows would need their own copy on one of its
// replicas, and the clusters here have one shard.

const rekeySortingKey = "user_id, ts, event_id"

// rekeyEventID is the event id of a row copied from the old table: its own, or for rows written before
// event ids one derived from what the row holds.
const rekeyEventID = "if(event_id = 0, cityHash64(request_id, key_id, ts_ms, route, latency_us), event_id)"

var monthPartition = regexp.MustCompile(`^[0-9]{6}$`)

// usageData is the table holding usage rows on this server: usage_events, or usage_events_local on a
// cluster.
func (db *DB) usageData() string {
	if db.Cluster != "" {
		return "usage_events_local"
	}
	return "usage_events"
}

// on is " ON CLUSTER `c`" on a cluster, else "".
func (db *DB) on() string {
	if db.Cluster == "" {
		return ""
	}
	return db.onCluster()
}

// sortingKey returns a table's sorting key and whether the table exists.
func (db *DB) sortingKey(ctx context.Context, table string) (string, bool, error) {
	rows, err := db.Conn.Query(ctx, "SELECT sorting_key FROM system.tables WHERE database = ? AND name = ?", db.Name, table)
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return "", false, rows.Err()
	}
	var key string
	err = rows.Scan(&key)
	return key, err == nil, err
}

func (db *DB) rekeyUsageEvents(ctx context.Context, hook func(step string) error) error {
	step := func(name string) error {
		if hook != nil {
			return hook(name)
		}
		return nil
	}
	data := db.usageData()
	fresh, old, stage := data+"_rekey", data+"_prekey", "usage_events_copy"
	key, exists, err := db.sortingKey(ctx, data)
	if err != nil {
		return err
	}
	if !exists || key != rekeySortingKey {
		if exists { // not swapped yet
			if err := step("create"); err != nil {
				return err
			}
			if err := db.Conn.Exec(ctx, db.createRekeyed(fresh, data)); err != nil {
				return fmt.Errorf("create %s: %w", fresh, err)
			}
			if err := step("swap"); err != nil {
				return err
			}
			if err := db.Conn.Exec(ctx, "RENAME TABLE "+db.table(data)+" TO "+db.table(old)+", "+db.table(fresh)+" TO "+db.table(data)+db.on()); err != nil {
				return fmt.Errorf("swap: %w", err)
			}
		} else { // stopped between the two renames of the swap
			if err := step("swap"); err != nil {
				return err
			}
			if err := db.Conn.Exec(ctx, "RENAME TABLE "+db.table(fresh)+" TO "+db.table(data)+db.on()); err != nil {
				return fmt.Errorf("swap: %w", err)
			}
		}
	}
	if _, exists, err := db.sortingKey(ctx, old); err != nil || !exists {
		return err // nothing (left) to move
	}
	if err := step("drain"); err != nil {
		return err
	}
	if err := db.drainInserts(ctx); err != nil {
		return err
	}
	if err := db.Conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+db.table(stage)+" AS "+db.table(data)+
		" ENGINE = MergeTree() PARTITION BY toYYYYMM(ts) ORDER BY ("+rekeySortingKey+")"); err != nil {
		return fmt.Errorf("create %s: %w", stage, err)
	}
	months, err := db.partitions(ctx, old)
	if err != nil {
		return err
	}
	cols, err := db.columns(ctx, old)
	if err != nil {
		return err
	}
	for _, p := range months {
		moved, err := db.monthMoved(ctx, old, data, p)
		if err != nil {
			return err
		}
		if !moved {
			if err := step("stage " + p); err != nil {
				return err
			}
			sel := strings.ReplaceAll(cols, "event_id", rekeyEventID+" AS event_id")
			for _, q := range []string{
				"ALTER TABLE " + db.table(stage) + " DROP PARTITION " + p,
				"INSERT INTO " + db.table(stage) + " (" + cols + ") SELECT " + sel + " FROM " + db.table(old) + " WHERE toYYYYMM(ts) = " + p,
			} {
				if err := db.Conn.Exec(ctx, q); err != nil {
					return fmt.Errorf("stage %s: %w", p, err)
				}
			}
			if err := step("attach " + p); err != nil {
				return err
			}
			if err := db.Conn.Exec(ctx, "ALTER TABLE "+db.table(data)+" ATTACH PARTITION "+p+" FROM "+db.table(stage)); err != nil {
				return fmt.Errorf("attach %s: %w", p, err)
			}
		}
		if err := db.Conn.Exec(ctx, "ALTER TABLE "+db.table(stage)+" DROP PARTITION "+p); err != nil {
			return fmt.Errorf("clear %s of %s: %w", stage, p, err)
		}
	}
	if err := step("drop"); err != nil {
		return err
	}
	if err := db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+db.table(old)+db.on()); err != nil {
		return err
	}
	return db.Conn.Exec(ctx, "DROP TABLE IF EXISTS "+db.table(stage))
}

// createRekeyed is the statement creating the new table with the columns of data.
func (db *DB) createRekeyed(fresh, data string) string {
	engine := "MergeTree()"
	if db.Cluster != "" {
		engine = "ReplicatedMergeTree(" + db.zkPath(fresh) + ", '{replica}')"
	}
	return "CREATE TABLE IF NOT EXISTS " + db.table(fresh) + db.on() + " AS " + db.table(data) +
		" ENGINE = " + engine + " PARTITION BY toYYYYMM(ts) ORDER BY (" + rekeySortingKey + ")"
}

// partitions lists a table's months holding rows.
func (db *DB) partitions(ctx context.Context, table string) ([]string, error) {
	rows, err := db.Conn.Query(ctx, "SELECT DISTINCT partition FROM system.parts WHERE database = ? AND table = ? AND active AND rows > 0 ORDER BY partition", db.Name, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		if !monthPartition.MatchString(p) {
			return nil, fmt.Errorf("%s has a partition %q that is not a month", table, p)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// columns is a table's column list, comma-separated, in order.
func (db *DB) columns(ctx context.Context, table string) (string, error) {
	rows, err := db.Conn.Query(ctx, "SELECT name FROM system.columns WHERE database = ? AND table = ?", db.Name, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", err
		}
		out = append(out, c)
	}
	return strings.Join(out, ", "), rows.Err()
}

// monthMoved reports whether usage_events holds the first row (on the old key) of a month of the old
// table: ATTACH PARTITION adds a month's rows in one step, so it holds all of them.
func (db *DB) monthMoved(ctx context.Context, old, data, month string) (bool, error) {
	var uid string
	var ts time.Time
	var id uint64
	err := db.Conn.QueryRow(ctx, "SELECT user_id, ts, "+rekeyEventID+" FROM "+db.table(old)+
		" WHERE toYYYYMM(ts) = "+month+" ORDER BY user_id, ts, request_id LIMIT 1").Scan(&uid, &ts, &id)
	if err != nil {
		return false, fmt.Errorf("first row of %s: %w", month, err)
	}
	var n uint64
	err = db.Conn.QueryRow(ctx, "SELECT count() FROM "+db.table(data)+" WHERE user_id = ? AND ts = toDateTime(?) AND event_id = ?",
		uid, ts.Unix(), id).Scan(&n)
	return n > 0, err
}

// drainInserts waits until every insert into usage_events that was running when it began has ended (on
// every server of the cluster).
func (db *DB) drainInserts(ctx context.Context) error {
	from := "system.processes"
	if db.Cluster != "" {
		rows, err := db.Conn.Query(ctx, "SELECT host_address, toUInt16(port) FROM system.clusters WHERE cluster = ?", db.Cluster)
		if err != nil {
			return err
		}
		var hosts []string
		for rows.Next() {
			var h string
			var p uint16
			if err := rows.Scan(&h, &p); err != nil {
				rows.Close()
				return err
			}
			hosts = append(hosts, fmt.Sprintf("%s:%d", h, p))
		}
		rows.Close()
		from = "remote('" + strings.Join(hosts, ",") + "', system.processes)"
	}
	began := time.Now()
	for {
		var n uint64
		err := db.Conn.QueryRow(ctx, "SELECT count() FROM "+from+" WHERE query LIKE ? AND elapsed >= ?",
			"INSERT INTO "+db.Name+".usage_events%", time.Since(began).Seconds()).Scan(&n)
		if err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
