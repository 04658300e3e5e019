package analytics

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Cluster mode (DB.Cluster set, SHARIAH_CLICKHOUSE_CLUSTER): the migrations create every table of
// migrations/*.sql twice, ON CLUSTER, so that every server of the cluster has both:
//
//   - NAME_local, the data: the same columns, partitioning and sorting key, on the Replicated form of
//     the engine (MergeTree -> ReplicatedMergeTree, ReplacingMergeTree(v) -> ReplicatedReplacingMergeTree)
//     at the ZooKeeper path /clickhouse/tables/{shard}/DATABASE/NAME with replica name {replica} (the
//     server's macros; 18.16 has no {database} or {table} macros, so the names are written out);
//   - NAME, a Distributed table over NAME_local on the cluster, sharded by the first column of the
//     sorting key (cityHash64), so the rows that FINAL or DISTINCT compare (one symbol's quarters, one
//     user's requests) are always on one shard.
//
// A materialized view (CREATE MATERIALIZED VIEW ... TO aggregate AS SELECT ... FROM usage_events) is
// created ON CLUSTER over the local tables: from NAME_local into the aggregate's replicated local table,
// whose Distributed table is read. ALTER TABLE ... ADD COLUMN runs on NAME_local, ON CLUSTER (on a cluster of one
// shard Migrate runs it on one replica and waits for the others: execMigration), and NAME is made again over it.
//
// The code reads and writes NAME as on a single node. Writes through the Distributed table go to one
// replica of the shard (internal_replication: the local one when the server is a replica), synchronously
// (insert_distributed_sync), and ReplicatedMergeTree copies them to the others; reads ask one replica of
// each shard. The SQL files stay the single-node schema: the cluster form is derived from them here.

// ErrUnknownCluster is returned when the server does not know the cluster DB.Cluster names.
var ErrUnknownCluster = errors.New("unknown ClickHouse cluster")

var clusterName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// ValidClusterName checks a cluster name: a remote_servers element name, used quoted in the DDL.
func ValidClusterName(name string) error {
	if !clusterName.MatchString(name) {
		return fmt.Errorf("%q is not a cluster name (letters, digits, _ and -; a letter or _ first)", name)
	}
	return nil
}

// CheckCluster verifies that the server knows DB.Cluster (system.clusters); the error wraps
// ErrUnknownCluster when the server answered without it, and is the connection's error when it did
// not answer. Nothing to check without a cluster.
func (db *DB) CheckCluster(ctx context.Context) error {
	if db.Cluster == "" {
		return nil
	}
	if err := ValidClusterName(db.Cluster); err != nil {
		return fmt.Errorf("%w: %w", ErrUnknownCluster, err)
	}
	rows, err := db.Conn.Query(ctx, "SELECT DISTINCT cluster FROM system.clusters ORDER BY cluster")
	if err != nil {
		return fmt.Errorf("clickhouse: reading system.clusters: %w", err)
	}
	defer rows.Close()
	var known []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return err
		}
		if c == db.Cluster {
			return nil
		}
		known = append(known, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	have := "no clusters"
	if len(known) > 0 {
		have = "only " + strings.Join(known, ", ")
	}
	return fmt.Errorf("%w %q: the server's remote_servers has %s", ErrUnknownCluster, db.Cluster, have)
}

// writeContext adds, in cluster mode, the settings of every insert: insert_distributed_sync, so an
// insert returns once the shard's replica holds the rows, not when the Distributed table has queued them
// on the local disk of the server it reached (the usage spool keeps a batch until the insert returns).
func (db *DB) writeContext(ctx context.Context) context.Context {
	if db.Cluster == "" {
		return ctx
	}
	return clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"insert_distributed_sync": 1}))
}

// ddlTimeout bounds how long the server waits for every replica to run an ON CLUSTER statement (180 s by
// default). A replica that is down runs it when it returns; the migration is then not recorded and a
// later `shariah migrate` (idempotent) completes it.
const ddlTimeout = 60

// clusterBootstrap is the cluster form of the database and of schema_migrations (replicated, so every
// replica knows what has been applied).
func (db *DB) clusterBootstrap() []string {
	on := db.onCluster()
	return []string{
		"CREATE DATABASE IF NOT EXISTS " + db.Name + on,
		"CREATE TABLE IF NOT EXISTS " + db.table("schema_migrations") + on +
			" (version UInt32, name String, applied_at DateTime) ENGINE = ReplicatedMergeTree(" +
			db.zkPath("schema_migrations") + ", '{replica}') ORDER BY version",
	}
}

func (db *DB) onCluster() string { return " ON CLUSTER `" + db.Cluster + "`" }

func (db *DB) zkPath(table string) string {
	return "'/clickhouse/tables/{shard}/" + db.Name + "/" + table + "'"
}

// createTable is the one statement form the migration files use: a CREATE TABLE IF NOT EXISTS of a
// *MergeTree table with PARTITION BY / ORDER BY after the engine.
var createTable = regexp.MustCompile(`(?s)^CREATE TABLE IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) (\(.*\)) ENGINE = ([A-Za-z]*MergeTree)\(([^)]*)\)(\s.*)$`)

// alterTable is an ALTER TABLE of a migration's table (ADD COLUMN; see hasAddedColumn).
var alterTable = regexp.MustCompile(`(?s)^ALTER TABLE ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) (ADD COLUMN .*)$`)

// createView is a materialized view writing TO a table, selecting FROM one table (no join, no subquery).
var createView = regexp.MustCompile(`(?s)^CREATE MATERIALIZED VIEW IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) TO ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) AS\s+(SELECT\s.*?)FROM ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(\s.*|)$`)

var firstSortColumn = regexp.MustCompile(`ORDER BY \(?\s*([A-Za-z_][A-Za-z0-9_]*)`)

// clusterStatements turns one migration statement (its {db} replaced) into its cluster form: the
// replicated local table and the Distributed table under the statement's name. A statement of another
// form is an error: it needs a cluster form written for it.
func (db *DB) clusterStatements(stmt string) ([]string, error) {
	if m := alterTable.FindStringSubmatch(stmt); m != nil && m[1] == db.Name {
		// The column goes to the data (replicated: one replica per shard runs the ALTER and ZooKeeper
		// carries it to the others). 18.16 refuses an ALTER ON CLUSTER of the Distributed table (not
		// replicated, on replicated shards), so that one is made again with the local table's columns
		// (CREATE ... AS); between the two, inserts fail and the usage spool holds them.
		key, err := db.shardKey(m[2])
		if err != nil {
			return nil, err
		}
		local := m[2] + "_local"
		return []string{
			"ALTER TABLE " + db.table(local) + db.onCluster() + " " + m[3],
			"DROP TABLE IF EXISTS " + db.table(m[2]) + db.onCluster(),
			"CREATE TABLE IF NOT EXISTS " + db.table(m[2]) + db.onCluster() + " AS " + db.table(local) +
				" ENGINE = Distributed('" + db.Cluster + "', '" + db.Name + "', '" + local + "', cityHash64(" + key + "))",
		}, nil
	}
	if m := createView.FindStringSubmatch(stmt); m != nil && m[1] == db.Name && m[3] == db.Name && m[6] == db.Name {
		// Each server's view watches its local table and writes to its local aggregate: an insert
		// reaches one replica of the shard, whose view aggregates it; the aggregate table replicates
		// the result (a part fetched by replication does not fire a view, so nothing counts twice).
		// Reads go through the aggregate's Distributed table.
		return []string{"CREATE MATERIALIZED VIEW IF NOT EXISTS " + db.table(m[2]) + db.onCluster() +
			" TO " + db.table(m[4]+"_local") + " AS\n" + m[5] + "FROM " + db.table(m[7]+"_local") + m[8]}, nil
	}
	m := createTable.FindStringSubmatch(stmt)
	if m == nil || m[1] != db.Name {
		return nil, fmt.Errorf("cluster mode has no translation of %q (only CREATE TABLE IF NOT EXISTS ... ENGINE = *MergeTree(...), CREATE MATERIALIZED VIEW IF NOT EXISTS ... TO ... FROM one table, ALTER TABLE ... ADD COLUMN)", firstLine(stmt))
	}
	name, cols, engine, args, rest := m[2], m[3], m[4], strings.TrimSpace(m[5]), m[6]
	key := firstSortColumn.FindStringSubmatch(rest)
	if key == nil {
		return nil, fmt.Errorf("cluster mode: table %s has no ORDER BY to shard on", name)
	}
	replArgs := db.zkPath(name) + ", '{replica}'"
	if args != "" {
		replArgs += ", " + args
	}
	local := name + "_local"
	return []string{
		"CREATE TABLE IF NOT EXISTS " + db.table(local) + db.onCluster() + " " + cols +
			" ENGINE = Replicated" + engine + "(" + replArgs + ")" + rest,
		"CREATE TABLE IF NOT EXISTS " + db.table(name) + db.onCluster() + " " + cols +
			" ENGINE = Distributed('" + db.Cluster + "', '" + db.Name + "', '" + local + "', cityHash64(" + key[1] + "))",
	}, nil
}

// shardKey is the sharding column of a migration's table: the first column of its sorting key, read from
// the migration that creates it.
func (db *DB) shardKey(table string) (string, error) {
	files, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return "", err
	}
	for _, f := range files {
		src, err := migrationFS.ReadFile(f)
		if err != nil {
			return "", err
		}
		for _, stmt := range splitStatements(strings.ReplaceAll(string(src), "{db}", db.Name)) {
			if m := createTable.FindStringSubmatch(stmt); m != nil && m[2] == table {
				if k := firstSortColumn.FindStringSubmatch(m[6]); k != nil {
					return k[1], nil
				}
			}
		}
	}
	return "", fmt.Errorf("cluster mode: no migration creates %s with a sorting key", table)
}

// checkClusterSchema refuses a database whose schema_migrations is not replicated: it was migrated
// without a cluster, and its tables are plain MergeTree under the names the Distributed tables need.
func (db *DB) checkClusterSchema(ctx context.Context) error {
	var engine string
	err := db.Conn.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = ? AND name = 'schema_migrations'", db.Name).Scan(&engine)
	if err != nil {
		return fmt.Errorf("reading the engine of %s: %w", db.table("schema_migrations"), err)
	}
	if !strings.HasPrefix(engine, "Replicated") {
		return fmt.Errorf("database %s was migrated without a cluster (schema_migrations is %s): cluster mode needs a database of its own", db.Name, engine)
	}
	return nil
}

// checkMacros verifies that the server has the {shard} and {replica} macros of the table paths.
func (db *DB) checkMacros(ctx context.Context) error {
	var n uint64
	if err := db.Conn.QueryRow(ctx, "SELECT toUInt64(count()) FROM system.macros WHERE macro IN ('shard', 'replica')").Scan(&n); err != nil {
		return fmt.Errorf("reading system.macros: %w", err)
	}
	if n != 2 {
		return errors.New("the server has no <macros> shard and replica (the replicated tables' ZooKeeper paths use them)")
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
