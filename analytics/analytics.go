// Package analytics is the ClickHouse side of the service: schema migrations, the batching writer of
// usage events and the usage queries (later also the trajectory series). SQL here runs on ClickHouse
// 18.16 (Debian) and on current releases: explicit INSERT column lists, DateTime only, explicit casts.
package analytics

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is a connection to ClickHouse and the database the service's tables live in. Connections are made
// to the server's default database and every table is named with its database, so the connection works
// before `shariah migrate` has created the database.
type DB struct {
	Conn driver.Conn
	Name string
	// Cluster names the ClickHouse cluster (remote_servers) the schema is replicated across
	// (SHARIAH_CLICKHOUSE_CLUSTER); empty: a single server. See cluster.go.
	Cluster string
}

var dbName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// DatabaseName checks a clickhouse:// URL and returns its database name (default "shariah"). The URL
// may name several servers, clickhouse://host1:9000,host2:9000/database (replicas of a cluster).
func DatabaseName(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "clickhouse" || u.Host == "" || slices.Contains(strings.Split(u.Host, ","), "") {
		return "", fmt.Errorf("%q is not a clickhouse://host:port/database URL (native protocol)", raw)
	}
	db := strings.Trim(u.Path, "/")
	if db == "" {
		db = "shariah"
	}
	if !dbName.MatchString(db) {
		return "", fmt.Errorf("database name %q is not a plain identifier", db)
	}
	return db, nil
}

// Open connects to the ClickHouse at a clickhouse://host:port/database URL (native protocol). With
// several servers (host1:9000,host2:9000), a connection goes to the first that accepts it: the
// replicas of a cluster stand in for each other.
func Open(raw string) (*DB, error) {
	name, err := DatabaseName(raw)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(raw)
	opts := &clickhouse.Options{
		Addr:             strings.Split(u.Host, ","),
		ConnOpenStrategy: clickhouse.ConnOpenInOrder,
		Auth:             clickhouse.Auth{Database: "default", Username: "default"},
		DialTimeout:      5 * time.Second,
		ReadTimeout:      30 * time.Second,
		DialContext: func(ctx context.Context, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			return writeBounded{c}, nil
		},
	}
	if u.User != nil {
		opts.Auth.Username = u.User.Username()
		opts.Auth.Password, _ = u.User.Password()
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %w", err)
	}
	return &DB{Conn: conn, Name: name}, nil
}

// writeBounded is a connection to ClickHouse whose every write has a deadline (writeTimeout from its
// start): clickhouse-go watches a context only while an insert's last block is sent, and the usage
// spool sends a batch's earlier blocks with Flush (writer.go, insertChunk), which a server that stopped
// reading (SIGSTOP) would otherwise hold forever once the socket's buffers are full.
type writeBounded struct{ net.Conn }

// writeTimeout bounds one write to ClickHouse: as long as an insert may take (insertTimeout).
const writeTimeout = insertTimeout

func (c writeBounded) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// SyscallConn lets clickhouse-go check a pooled connection for a closed peer before reusing it, as it
// does for the plain TCP connection.
func (c writeBounded) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// Close closes the connection.
func (db *DB) Close() error { return db.Conn.Close() }

// table returns a table's qualified name.
func (db *DB) table(name string) string { return db.Name + "." + name }

// Migrate creates the database and applies every migration not applied yet, in order. Each migration
// is idempotent (CREATE ... IF NOT EXISTS), so a migration interrupted before being recorded is safe to
// run again. With a Cluster, every statement is its cluster form (cluster.go), run ON CLUSTER; the
// cluster must be known to the server (an error wrapping ErrUnknownCluster otherwise).
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	return db.migrate(ctx, 0, nil)
}

// codeMigration is a migration that is a procedure, not a file of statements: its steps read what the
// server holds to know where a run before it stopped (rekey.go). hook, when not nil, is called before
// each step with the step's name (the tests stop a migration there).
type codeMigration struct {
	version uint32
	name    string
	run     func(db *DB, ctx context.Context, hook func(step string) error) error
}

var codeMigrations = []codeMigration{
	{version: 6, name: "006_usage_events_rekey", run: (*DB).rekeyUsageEvents},
	{version: 7, name: "007_usage_chained_views", run: (*DB).chainUsageViews},
}

// migrate applies the migrations up to version upTo (0: all), calling hook before each step of a code
// migration.
func (db *DB) migrate(ctx context.Context, upTo uint32, hook func(step string) error) ([]string, error) {
	ctx, err := db.openSchema(ctx)
	if err != nil {
		return nil, err
	}
	applied, err := db.appliedVersions(ctx)
	if err != nil {
		return nil, err
	}
	all, err := allMigrations()
	if err != nil {
		return nil, err
	}
	var done []string
	for _, m := range all {
		if applied[m.version] || upTo > 0 && m.version > upTo {
			continue
		}
		if err := db.applyMigration(ctx, m, hook); err != nil {
			return done, fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := db.recordApplied(ctx, m); err != nil {
			return done, err
		}
		done = append(done, m.name)
	}
	return done, nil
}

// openSchema creates the database and the table of applied migrations. With a Cluster it first checks
// the cluster and its macros, then the cluster's schema; the context it returns (to run the migrations
// with) waits ddlTimeout for a distributed DDL.
func (db *DB) openSchema(ctx context.Context) (context.Context, error) {
	bootstrap := db.bootstrap()
	if db.Cluster != "" {
		if err := db.CheckCluster(ctx); err != nil {
			return nil, err
		}
		if err := db.checkMacros(ctx); err != nil {
			return nil, err
		}
		ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"distributed_ddl_task_timeout": ddlTimeout}))
	}
	if err := db.Conn.Exec(ctx, bootstrap[0]); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	if err := db.Conn.Exec(ctx, bootstrap[1]); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	if db.Cluster != "" {
		if err := db.checkClusterSchema(ctx); err != nil {
			return nil, err
		}
	}
	return ctx, nil
}

// appliedVersions is the versions recorded in schema_migrations.
func (db *DB) appliedVersions(ctx context.Context) (map[uint32]bool, error) {
	applied := map[uint32]bool{}
	rows, err := db.Conn.Query(ctx, "SELECT version FROM "+db.table("schema_migrations"))
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, err
		}
		applied[v] = true
	}
	rows.Close()
	return applied, nil
}

// migration is one migration: a file of statements (file) or a procedure (code).
type migration struct {
	version uint32
	name    string
	file    string
	code    *codeMigration
}

// allMigrations is every migration, files and code, in the order of their versions.
func allMigrations() ([]migration, error) {
	files, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var all []migration
	for _, f := range files {
		base := strings.TrimPrefix(f, "migrations/")
		v, err := strconv.ParseUint(strings.SplitN(base, "_", 2)[0], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", base)
		}
		all = append(all, migration{version: uint32(v), name: base, file: f})
	}
	for i := range codeMigrations {
		all = append(all, migration{version: codeMigrations[i].version, name: codeMigrations[i].name, code: &codeMigrations[i]})
	}
	sort.Slice(all, func(a, b int) bool { return all[a].version < all[b].version })
	return all, nil
}

// applyMigration runs one migration: its procedure, or its file's statements, each but an added column
// the table has already.
func (db *DB) applyMigration(ctx context.Context, m migration, hook func(step string) error) error {
	if m.code != nil {
		return m.code.run(db, ctx, hook)
	}
	stmts, err := db.migrationStatements(m.file)
	if err != nil {
		return err
	}
	for _, stmt := range stmts {
		if has, err := db.hasAddedColumn(ctx, stmt); err != nil {
			return err
		} else if has {
			continue
		}
		if err := db.execMigration(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// recordApplied records a migration in schema_migrations.
func (db *DB) recordApplied(ctx context.Context, m migration) error {
	// INSERT ... VALUES with bound arguments hangs against 18.16 over the native protocol; a batch works
	// on every version.
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+db.table("schema_migrations")+" (version, name, applied_at)")
	if err != nil {
		return err
	}
	if err := b.Append(m.version, m.name, time.Now().UTC().Truncate(time.Second)); err != nil {
		return err
	}
	return b.Send()
}

// bootstrap creates the database and the table of applied migrations.
func (db *DB) bootstrap() []string {
	if db.Cluster != "" {
		return db.clusterBootstrap()
	}
	return []string{"CREATE DATABASE IF NOT EXISTS " + db.Name,
		"CREATE TABLE IF NOT EXISTS " + db.table("schema_migrations") + " (version UInt32, name String, applied_at DateTime) ENGINE = TinyLog"}
}

// migrationStatements reads one migration file and returns its statements for this database: as
// written, or their cluster form.
func (db *DB) migrationStatements(file string) ([]string, error) {
	src, err := migrationFS.ReadFile(file)
	if err != nil {
		return nil, err
	}
	stmts := splitStatements(strings.ReplaceAll(string(src), "{db}", db.Name))
	if db.Cluster == "" {
		return stmts, nil
	}
	var out []string
	for _, stmt := range stmts {
		cs, err := db.clusterStatements(stmt)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// Schema returns the statements Migrate runs for this database, in order (for the documentation and
// the tests; Migrate skips the migrations already applied).
func (db *DB) Schema() ([]string, error) {
	files, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	out := db.bootstrap()
	for _, f := range files {
		stmts, err := db.migrationStatements(f)
		if err != nil {
			return nil, err
		}
		out = append(out, stmts...)
	}
	return out, nil
}

// alterAddColumn is the form of a migration that adds a column: ALTER TABLE db.table [ON CLUSTER c]
// ADD COLUMN name ..., one column per statement.
var alterAddColumn = regexp.MustCompile(`^ALTER TABLE ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?: ON CLUSTER ` + "`[^`]*`" + `)? ADD COLUMN ([A-Za-z_][A-Za-z0-9_]*) `)

// hasAddedColumn reports whether stmt adds a column the table already has. 18.16 has no ADD COLUMN IF
// NOT EXISTS, and a migration interrupted before being recorded runs again: its ADD COLUMN statements
// that took effect are skipped. (On a cluster, the local server's table answers for every replica: ON
// CLUSTER ran the ALTER everywhere or is still running it.)
func (db *DB) hasAddedColumn(ctx context.Context, stmt string) (bool, error) {
	m := alterAddColumn.FindStringSubmatch(stmt)
	if m == nil {
		return false, nil
	}
	var n uint64
	err := db.Conn.QueryRow(ctx, "SELECT toUInt64(count()) FROM system.columns WHERE database = ? AND table = ? AND name = ?",
		m[1], m[2], m[3]).Scan(&n)
	return n > 0, err
}

// execMigration runs one migration statement. On a cluster of one shard, an ADD COLUMN of a replicated
// table runs on this server without ON CLUSTER (ReplicatedMergeTree replicates the ALTER through
// ZooKeeper) and returns once every replica's table has the column: 18.16's distributed DDL races when
// both replicas of a shard pick up one ALTER task (one fails with "Node exists ... /executed", an
// "Unexpected ZooKeeper error", and the task is never marked finished on it, so the statement waits out
// its timeout and every later ON CLUSTER statement queues behind it; seen once in a fresh-clone
// make test). Every other statement, and every statement on a cluster of several shards, runs as written.
func (db *DB) execMigration(ctx context.Context, stmt string) error {
	m := alterAddColumn.FindStringSubmatch(stmt)
	on := db.onCluster()
	if db.Cluster == "" || m == nil || !strings.Contains(stmt, on) {
		return db.Conn.Exec(ctx, stmt)
	}
	hosts, shards, err := db.clusterHosts(ctx)
	if err != nil {
		return err
	}
	if shards != 1 {
		return db.Conn.Exec(ctx, stmt)
	}
	if err := db.Conn.Exec(ctx, strings.Replace(stmt, on, "", 1)); err != nil {
		return err
	}
	deadline := time.Now().Add(ddlTimeout * time.Second)
	for {
		var n uint64
		err := db.Conn.QueryRow(ctx, "SELECT toUInt64(count()) FROM remote('"+strings.Join(hosts, ",")+"', system.columns) WHERE database = ? AND table = ? AND name = ?",
			m[1], m[2], m[3]).Scan(&n)
		if err == nil && n == uint64(len(hosts)) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("column %s of %s.%s on %d of %d replicas after %d s (%v)", m[3], m[1], m[2], n, len(hosts), ddlTimeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// clusterHosts lists the servers of the cluster (host:port) and counts its shards.
func (db *DB) clusterHosts(ctx context.Context) (hosts []string, shards int, err error) {
	rows, err := db.Conn.Query(ctx, "SELECT host_address, toUInt16(port), toUInt32(shard_num) FROM system.clusters WHERE cluster = ?", db.Cluster)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	seen := map[uint32]bool{}
	for rows.Next() {
		var h string
		var p uint16
		var s uint32
		if err := rows.Scan(&h, &p, &s); err != nil {
			return nil, 0, err
		}
		hosts = append(hosts, fmt.Sprintf("%s:%d", h, p))
		seen[s] = true
	}
	return hosts, len(seen), rows.Err()
}

// splitStatements splits a migration file on semicolons at line ends and drops comment-only parts.
func splitStatements(src string) []string {
	var out []string
	for _, part := range strings.Split(src, ";\n") {
		var lines []string
		for _, l := range strings.Split(part, "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
				lines = append(lines, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			out = append(out, strings.TrimSuffix(s, ";"))
		}
	}
	return out
}
