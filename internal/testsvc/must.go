package testsvc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// MustRedis starts a redis-server of the test's own (data in tb.TempDir()), stops it when the test ends,
// and fails the test if it cannot start. The test may stop, kill, signal or restart it.
func MustRedis(tb testing.TB, extra ...string) *Proc {
	tb.Helper()
	p, err := StartRedis(tb.TempDir(), extra...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Stop)
	return p
}

// MustRedisCluster starts a Redis Cluster of n masters for the test and stops it when the test ends.
func MustRedisCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	c, err := StartRedisCluster(tb.TempDir(), n)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// MustRedisClusterWith starts a Redis Cluster shaped by o for the test (data in tb.TempDir()) and
// stops it when the test ends; the test may kill any node (KillMaster, then WaitFailover).
func MustRedisClusterWith(tb testing.TB, o RedisClusterOptions) *Cluster {
	tb.Helper()
	c, err := StartRedisClusterWith(tb.TempDir(), o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// MustRedisClusterReplicated starts a Redis Cluster of three masters with one replica each and a
// node timeout of one second (a killed master's replica takes over within a few seconds).
func MustRedisClusterReplicated(tb testing.TB) *Cluster {
	tb.Helper()
	return MustRedisClusterWith(tb, RedisClusterOptions{Masters: 3, Replicas: 1, NodeTimeout: time.Second})
}

// MustClickHouse starts a clickhouse-server of the test's own and stops it when the test ends. Use it
// when the test stops or kills the server; otherwise ClickHouseDB (one shared server) is cheaper.
func MustClickHouse(tb testing.TB) *Proc {
	tb.Helper()
	p, err := StartClickHouse(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Stop)
	return p
}

// MustClickHouseCluster starts a ZooKeeper and n ClickHouse replicas of one cluster (ClusterName) for the
// test and stops them when it ends; the test may stop and start any of them. Use it when the test stops
// a server; otherwise ClickHouseClusterDB (one shared cluster) is cheaper.
func MustClickHouseCluster(tb testing.TB, n int) *ClickHouseCluster {
	tb.Helper()
	c, err := StartClickHouseCluster(tb.TempDir(), n)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// sharedCluster is the two-replica cluster shared by a package's tests: started on first use, stopped
// by Main.
var sharedCluster struct {
	once sync.Once
	dir  string
	c    *ClickHouseCluster
	err  error
}

// ClickHouseClusterDB returns the two-replica cluster the package's tests share (starting it on first
// use) and the name of a database of the test's own on it (not yet created). The package's TestMain
// must call Main.
func ClickHouseClusterDB(tb testing.TB) (*ClickHouseCluster, string) {
	tb.Helper()
	sharedCluster.once.Do(func() {
		if sharedCluster.dir, sharedCluster.err = os.MkdirTemp("", "clickhouse-cluster-test-"); sharedCluster.err == nil {
			sharedCluster.c, sharedCluster.err = StartClickHouseCluster(sharedCluster.dir, 2)
		}
	})
	if sharedCluster.err != nil {
		tb.Fatal(sharedCluster.err)
	}
	return sharedCluster.c, testDBName(tb)
}

// shared is the ClickHouse shared by a package's tests: started on first use, stopped by Main.
var shared struct {
	once sync.Once
	dir  string
	ch   *Proc
	err  error
	n    atomic.Int64
}

// Main runs a package's tests and then stops the servers they shared. A package whose tests call
// ClickHouseDB or ClickHouseClusterDB has `func TestMain(m *testing.M) { os.Exit(testsvc.Main(m)) }`.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.ch != nil {
		shared.ch.Stop()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	if sharedCluster.c != nil {
		sharedCluster.c.Stop()
	}
	if sharedCluster.dir != "" {
		os.RemoveAll(sharedCluster.dir)
	}
	return code
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// ClickHouseDB returns the URL of a database of the test's own (named after the test, not yet created)
// on the ClickHouse the package's tests share, starting it on first use. Tests using it may run in
// parallel: nothing but the server is shared. The package's TestMain must call Main.
func ClickHouseDB(tb testing.TB) string {
	tb.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "clickhouse-test-"); shared.err == nil {
			shared.ch, shared.err = StartClickHouse(filepath.Join(shared.dir, "ch"))
		}
	})
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.ch.ClickHouseURL(testDBName(tb))
}

// testDBName names a database after the test, unique in the test binary.
func testDBName(tb testing.TB) string {
	name := unsafeName.ReplaceAllString(tb.Name(), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	return fmt.Sprintf("t%d_%s", shared.n.Add(1), name)
}
