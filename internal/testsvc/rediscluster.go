package testsvc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Cluster is a Redis Cluster on one machine: masters, and optionally replicas of each.
type Cluster struct {
	Nodes []*Proc
	// masters and replicas per master as created (CLUSTER NODES says who is what now)
	masters, replicas int
	// killed holds the slots each master killed by KillMaster served, by port
	killed map[int][][2]int
}

// RedisClusterOptions shape a cluster.
type RedisClusterOptions struct {
	Masters int
	// Replicas per master (0: none; a master lost is then a cluster in state fail).
	Replicas int
	// NodeTimeout is cluster-node-timeout: how long a node may not answer before it is marked failing
	// and its replica may take over (0: Redis's default, 15 s).
	NodeTimeout time.Duration
}

// URL lists every node, so a client can seed from any of them (the form SHARIAH_REDIS_URL takes).
func (c *Cluster) URL() string {
	u := fmt.Sprintf("redis://127.0.0.1:%d", c.Nodes[0].Port)
	for i, n := range c.Nodes[1:] {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		u += fmt.Sprintf("%saddr=127.0.0.1:%d", sep, n.Port)
	}
	return u
}

// Stop stops every node.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		n.Stop()
	}
}

// StartRedisCluster starts n cluster-enabled redis-servers and joins them into a cluster without replicas.
func StartRedisCluster(dir string, n int) (*Cluster, error) {
	return StartRedisClusterWith(dir, RedisClusterOptions{Masters: n})
}

// StartRedisClusterWith starts o.Masters x (1 + o.Replicas) cluster-enabled redis-servers on free
// loopback ports (the cluster bus on a free port of its own), joins them with redis-cli --cluster
// create, and waits until every node reports the cluster ok, knows every other node in its role, and
// every replica has synchronised with its master (a replica that has not cannot take over).
func StartRedisClusterWith(dir string, o RedisClusterOptions) (*Cluster, error) {
	c := &Cluster{masters: o.Masters, replicas: o.Replicas}
	var addrs []string
	for i := range o.Masters * (1 + o.Replicas) {
		d := filepath.Join(dir, "node"+strconv.Itoa(i))
		p, err := startRedisFree(d, func() ([]string, error) {
			// an attempt whose bus port was taken may have written its node id
			if err := os.Remove(filepath.Join(d, "nodes.conf")); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
			bus, err := FreePort()
			if err != nil {
				return nil, err
			}
			extra := []string{"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(d, "nodes.conf"),
				"--cluster-port", strconv.Itoa(bus),
				// a replica's first synchronisation starts at once (Redis waits 5 s for more replicas by default)
				"--repl-diskless-sync-delay", "0"}
			if o.NodeTimeout > 0 {
				extra = append(extra, "--cluster-node-timeout", strconv.FormatInt(o.NodeTimeout.Milliseconds(), 10))
			}
			return extra, nil
		})
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, p)
		addrs = append(addrs, "127.0.0.1:"+strconv.Itoa(p.Port))
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(o.Replicas), "--cluster-yes")
	out, err := exec.Command("redis-cli", args...).CombinedOutput()
	if err != nil {
		c.Stop()
		return nil, fmt.Errorf("redis-cli --cluster create: %w\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.waitFormed(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// waitFormed waits until every node says cluster_state:ok and lists the masters with slots and the
// replicas as created, and every replica's link to its master is up and synchronised.
func (c *Cluster) waitFormed(ctx context.Context) error {
	var last string
	for {
		ok := true
		for _, p := range c.Nodes {
			info, err := c.Info(p)
			if err != nil || info["cluster_state"] != "ok" {
				ok, last = false, fmt.Sprintf("node %d: %v %v", p.Port, info["cluster_state"], err)
				break
			}
			nodes, err := c.ClusterNodes(p)
			if err != nil {
				ok, last = false, err.Error()
				break
			}
			masters, replicas := 0, 0
			for _, n := range nodes {
				switch {
				case n.Master() && len(n.Slots) > 0:
					masters++
				case n.Replica() && n.MasterID != "":
					replicas++
				}
			}
			if masters != c.masters || replicas != c.masters*c.replicas {
				ok, last = false, fmt.Sprintf("node %d sees %d masters and %d replicas", p.Port, masters, replicas)
				break
			}
			if self := nodes.Self(); self.Replica() {
				repl, err := Command(p.Port, "INFO", "replication")
				if err != nil || !strings.Contains(repl, "master_link_status:up") || !strings.Contains(repl, "master_sync_in_progress:0") {
					ok, last = false, fmt.Sprintf("replica %d not synchronised: %v", p.Port, err)
					break
				}
			}
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the Redis Cluster never formed (%s): %w", last, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Live lists the nodes that run.
func (c *Cluster) Live() []*Proc {
	var out []*Proc
	for _, p := range c.Nodes {
		if p.cmd != nil {
			out = append(out, p)
		}
	}
	return out
}

// Node returns the node listening on port.
func (c *Cluster) Node(port int) *Proc {
	for _, p := range c.Nodes {
		if p.Port == port {
			return p
		}
	}
	return nil
}

// Info is the node's CLUSTER INFO as fields (cluster_state, cluster_slots_ok, ...).
func (c *Cluster) Info(p *Proc) (map[string]string, error) {
	s, err := Command(p.Port, "CLUSTER", "INFO")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

// ClusterNode is one line of CLUSTER NODES.
type ClusterNode struct {
	ID       string
	Port     int
	Flags    []string
	MasterID string // a replica's master ("" for a master)
	Slots    [][2]int
}

// Master, Replica and Failed read the flags.
func (n ClusterNode) Master() bool  { return slices.Contains(n.Flags, "master") }
func (n ClusterNode) Replica() bool { return slices.Contains(n.Flags, "slave") }
func (n ClusterNode) Failed() bool  { return slices.Contains(n.Flags, "fail") }

// Serves reports whether the node's slot ranges hold slot.
func (n ClusterNode) Serves(slot int) bool {
	for _, r := range n.Slots {
		if slot >= r[0] && slot <= r[1] {
			return true
		}
	}
	return false
}

// ClusterNodes is a node's view of the cluster.
type ClusterNodes []ClusterNode

// Self is the node that answered.
func (ns ClusterNodes) Self() ClusterNode {
	for _, n := range ns {
		if slices.Contains(n.Flags, "myself") {
			return n
		}
	}
	return ClusterNode{}
}

// ByPort finds a node by its port.
func (ns ClusterNodes) ByPort(port int) (ClusterNode, bool) {
	for _, n := range ns {
		if n.Port == port {
			return n, true
		}
	}
	return ClusterNode{}, false
}

// ClusterNodes is the node's CLUSTER NODES.
func (c *Cluster) ClusterNodes(p *Proc) (ClusterNodes, error) {
	s, err := Command(p.Port, "CLUSTER", "NODES")
	if err != nil {
		return nil, err
	}
	var out ClusterNodes
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		// <id> <ip:port@cport> <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state> <slot> ...
		n := ClusterNode{ID: f[0], Flags: strings.Split(f[2], ",")}
		addr, _, _ := strings.Cut(f[1], "@")
		_, port, _ := net.SplitHostPort(addr)
		n.Port, _ = strconv.Atoi(port)
		if f[3] != "-" {
			n.MasterID = f[3]
		}
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") { // a slot being migrated
				continue
			}
			lo, hi, ok := strings.Cut(r, "-")
			if !ok {
				hi = lo
			}
			a, _ := strconv.Atoi(lo)
			b, _ := strconv.Atoi(hi)
			n.Slots = append(n.Slots, [2]int{a, b})
		}
		out = append(out, n)
	}
	return out, nil
}

// Slot is the cluster slot of key (CLUSTER KEYSLOT on a live node).
func (c *Cluster) Slot(key string) (int, error) {
	var err error
	for _, p := range c.Live() {
		var s string
		if s, err = Command(p.Port, "CLUSTER", "KEYSLOT", key); err == nil {
			return strconv.Atoi(s)
		}
	}
	return 0, fmt.Errorf("no live node answered CLUSTER KEYSLOT: %v", err)
}

// MasterOf is the live master that serves key's slot, as the first live node that answers sees it.
func (c *Cluster) MasterOf(key string) (*Proc, error) {
	slot, err := c.Slot(key)
	if err != nil {
		return nil, err
	}
	for _, p := range c.Live() {
		nodes, err := c.ClusterNodes(p)
		if err != nil {
			continue
		}
		for _, n := range nodes {
			if n.Master() && !n.Failed() && n.Serves(slot) {
				if m := c.Node(n.Port); m != nil && m.cmd != nil {
					return m, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("no live master serves slot %d of %q", slot, key)
}

// WaitState waits until every live node reports cluster_state:state ("ok" or "fail").
func (c *Cluster) WaitState(ctx context.Context, state string) error {
	for {
		all := true
		for _, p := range c.Live() {
			if info, err := c.Info(p); err != nil || info["cluster_state"] != state {
				all = false
				break
			}
		}
		if all {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the cluster never reached cluster_state:%s: %w", state, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// KillMaster kills a master with SIGKILL, as a crash would, after reading the slots it serves (the
// slots WaitFailover then waits for a replica to serve).
func (c *Cluster) KillMaster(p *Proc) error {
	nodes, err := c.ClusterNodes(p)
	if err != nil {
		return err
	}
	self := nodes.Self()
	if !self.Master() || len(self.Slots) == 0 {
		return fmt.Errorf("node %d is not a master serving slots (%v)", p.Port, self.Flags)
	}
	if c.killed == nil {
		c.killed = map[int][][2]int{}
	}
	c.killed[p.Port] = self.Slots
	p.Kill()
	return nil
}

// WaitFailover waits, after KillMaster(dead), until every live node sees one and the same replica
// serving the dead master's slots as a master, and every live node reports cluster_state:ok. It
// returns the promoted replica.
func (c *Cluster) WaitFailover(ctx context.Context, dead *Proc) (*Proc, error) {
	slots := c.killed[dead.Port]
	if len(slots) == 0 {
		return nil, fmt.Errorf("node %d was not killed by KillMaster", dead.Port)
	}
	var last string
	for {
		var promoted *Proc
		agreed := true
		for _, p := range c.Live() {
			nodes, err := c.ClusterNodes(p)
			if err != nil {
				agreed, last = false, err.Error()
				break
			}
			var got *Proc
			for _, n := range nodes {
				if n.Port != dead.Port && n.Master() && !n.Failed() && n.Serves(slots[0][0]) {
					got = c.Node(n.Port)
				}
			}
			if got == nil || got.cmd == nil || (promoted != nil && got != promoted) {
				agreed, last = false, fmt.Sprintf("node %d sees no live master of slot %d", p.Port, slots[0][0])
				break
			}
			promoted = got
		}
		if agreed && promoted != nil {
			if err := c.WaitState(ctx, "ok"); err != nil {
				return nil, err
			}
			return promoted, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no replica took over from the master on port %d (%s): %w", dead.Port, last, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Command sends one command to the Redis on the loopback port and returns its reply as text: a
// simple or bulk string, an integer; an error reply is an error. (Enough for CLUSTER INFO, CLUSTER
// NODES, CLUSTER KEYSLOT and INFO; no arrays.)
func Command(port int, args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("redis: %s", line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("nil or bad bulk reply %q", line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}
