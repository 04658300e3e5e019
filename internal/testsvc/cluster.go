package testsvc

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// zooKeeperJar is Debian's ZooKeeper (package zookeeper); its manifest names the jars it needs.
const zooKeeperJar = "/usr/share/java/zookeeper.jar"

// StartZooKeeper starts a standalone ZooKeeper (Debian's jar, run by java) on a free loopback port with
// its data in dir, and waits until it serves: `srvr` shows a Mode (`ruok` answers imok too early).
func StartZooKeeper(dir string) (*Proc, error) {
	if _, err := os.Stat(zooKeeperJar); err != nil {
		return nil, fmt.Errorf("ZooKeeper not installed (%s is missing: Debian's zookeeper package; scripts/install-services.sh installs it): %w", zooKeeperJar, err)
	}
	return onFreePorts(func() (*Proc, error) { return startZooKeeper(dir) })
}

func startZooKeeper(dir string) (*Proc, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	// admin.enableServer=false: the admin server would take port 8080.
	cfg := fmt.Sprintf("tickTime=500\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"admin.enableServer=false\n4lw.commands.whitelist=ruok,stat,mntr,srvr\n", filepath.Join(dir, "data"), port)
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	p, err := start("java", []string{"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dzookeeper.root.logger=WARN,CONSOLE", "-cp", "/etc/zookeeper/conf:" + zooKeeperJar,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath}, dir)
	if err != nil {
		return nil, fmt.Errorf("ZooKeeper needs a Java runtime: %w", err)
	}
	p.Port, p.ready = port, waitZooKeeper
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := waitZooKeeper(ctx, p); err != nil {
		p.Kill()
		return nil, fmt.Errorf("ZooKeeper: %w\n%s", err, p.out.String())
	}
	return p, nil
}

// waitZooKeeper waits until the ZooKeeper answers `srvr` with its Mode.
func waitZooKeeper(ctx context.Context, p *Proc) error {
	addr := "127.0.0.1:" + strconv.Itoa(p.Port)
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, _ = c.Write([]byte("srvr"))
			out, _ := io.ReadAll(c)
			c.Close()
			if bytes.Contains(out, []byte("Mode:")) && p.listensOn(p.Port) {
				return nil
			}
		}
		if p.exited() {
			return fmt.Errorf("ZooKeeper on port %d %w", p.Port, errExited)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never served: %w", addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

//go:embed clickhouse-replica.xml
var replicaConf string

var replicaTmpl = template.Must(template.New("replica").Parse(replicaConf))

// ClickHouseCluster is a ZooKeeper and ClickHouse servers configured as one cluster (remote_servers) of
// one shard whose replicas replicate through the ZooKeeper; ON CLUSTER DDL works on it.
type ClickHouseCluster struct {
	Name      string // the cluster's name in remote_servers (SHARIAH_CLICKHOUSE_CLUSTER)
	ZooKeeper *Proc
	Replicas  []*Proc // macros: shard 01, replica r1, r2, ...
}

// ClusterName is the name of the clusters StartClickHouseCluster configures.
const ClusterName = "shariah_test"

// StartClickHouseCluster starts a ZooKeeper and then n clickhouse-servers (a server started before its
// ZooKeeper exits once replicated tables exist), each in a directory of dir, on free loopback ports.
func StartClickHouseCluster(dir string, n int) (*ClickHouseCluster, error) {
	zk, err := StartZooKeeper(filepath.Join(dir, "zk"))
	if err != nil {
		return nil, err
	}
	c := &ClickHouseCluster{Name: ClusterName, ZooKeeper: zk}
	// Every server's configuration names every server's port, so a port another process takes between
	// FreePort and the server's start fails the attempt: the next one takes other ports.
	for attempt := 0; attempt < 3; attempt++ {
		if err = c.startReplicas(dir, n); err == nil {
			return c, nil
		}
		for _, r := range c.Replicas {
			r.Stop()
		}
		c.Replicas = nil
	}
	c.Stop()
	return nil, err
}

// startReplicas starts n servers of the cluster on free ports.
func (c *ClickHouseCluster) startReplicas(dir string, n int) error {
	type ports struct{ tcp, http, interserver int }
	all := make([]ports, n)
	tcps := make([]int, n)
	for i := range all {
		for _, p := range []*int{&all[i].tcp, &all[i].http, &all[i].interserver} {
			var err error
			if *p, err = FreePort(); err != nil {
				return err
			}
		}
		tcps[i] = all[i].tcp
	}
	for i, p := range all {
		var conf bytes.Buffer
		if err := replicaTmpl.Execute(&conf, map[string]any{"InterserverPort": p.interserver, "ZooKeeperPort": c.ZooKeeper.Port,
			"Shard": "01", "Replica": "r" + strconv.Itoa(i+1), "Cluster": c.Name, "Ports": tcps}); err != nil {
			return err
		}
		ch, err := startClickHouse(filepath.Join(dir, "ch"+strconv.Itoa(i+1)), p.tcp, p.http, conf.Bytes())
		if err != nil {
			return err
		}
		c.Replicas = append(c.Replicas, ch)
	}
	return nil
}

// Stop stops the servers and then the ZooKeeper.
func (c *ClickHouseCluster) Stop() {
	for _, r := range c.Replicas {
		r.Stop()
	}
	c.ZooKeeper.Stop()
}

// URL is the clickhouse:// URL naming every replica (the first one first) and the database.
func (c *ClickHouseCluster) URL(db string) string {
	hosts := make([]string, len(c.Replicas))
	for i, r := range c.Replicas {
		hosts[i] = "127.0.0.1:" + strconv.Itoa(r.Port)
	}
	return fmt.Sprintf("clickhouse://%s/%s", strings.Join(hosts, ","), db)
}

// Logs tells whether each server still runs and shows the end of each replica's error log, for a
// failing test to print.
func (c *ClickHouseCluster) Logs() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- ZooKeeper (port %d): %s\n", c.ZooKeeper.Port, c.ZooKeeper.state())
	for i, r := range c.Replicas {
		errlog, _ := os.ReadFile(filepath.Join(r.Dir, "log", "clickhouse-server.err.log"))
		fmt.Fprintf(&b, "--- replica %d (port %d): %s; error log:\n%s\n", i+1, r.Port, r.state(), tail(errlog, 40))
	}
	return b.String()
}

// state says whether the process is running.
func (p *Proc) state() string {
	if p.cmd == nil || p.cmd.Process == nil {
		return "stopped"
	}
	if err := p.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		return "exited"
	}
	return "running"
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
