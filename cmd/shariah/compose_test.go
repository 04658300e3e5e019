package main

import (
	"encoding/xml"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	cenv "github.com/caarlos0/env/v11"
	yaml "github.com/oasdiff/yaml3"
	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/config"
)

// composeService is what the compose tests read of a service.
type composeService struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	Command     []string          `yaml:"command"`
	Profiles    []string          `yaml:"profiles"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	Hostname    string            `yaml:"hostname"`
	Deploy      struct {
		Replicas *int `yaml:"replicas"`
	} `yaml:"deploy"`
}

// xmlNode is any element of a ClickHouse config file (element names there are data: a cluster's name).
type xmlNode struct {
	XMLName xml.Name
	Text    string    `xml:",chardata"`
	Nodes   []xmlNode `xml:",any"`
}

func (n xmlNode) child(name string) (xmlNode, bool) {
	for _, c := range n.Nodes {
		if c.XMLName.Local == name {
			return c, true
		}
	}
	return xmlNode{}, false
}

func (n xmlNode) children(name string) []xmlNode {
	var out []xmlNode
	for _, c := range n.Nodes {
		if c.XMLName.Local == name {
			out = append(out, c)
		}
	}
	return out
}

func readXML(t *testing.T, path string) xmlNode {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var n xmlNode
	if err := xml.Unmarshal(raw, &n); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n
}

// composeVar is a compose interpolation: ${VAR}, ${VAR:-default}, or an escaped $${...} (left to the shell).
var composeVar = regexp.MustCompile(`\$?\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}`)

// interpolateDefaults does what compose does with an empty environment: ${VAR:-default} becomes the
// default, ${VAR} empty, and $$ a single $.
func interpolateDefaults(s string) string {
	s = composeVar.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "$$") {
			return m
		}
		if _, def, ok := strings.Cut(m, ":-"); ok {
			return strings.TrimSuffix(def, "}")
		}
		return ""
	})
	return strings.ReplaceAll(s, "$$", "$")
}

// mountedFile returns the repository file a service bind-mounts at target ("" when none).
func mountedFile(s composeService, target string) string {
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target && strings.HasPrefix(parts[0], "./") {
			return filepath.Join("../..", parts[0])
		}
	}
	return ""
}

// TestComposeClusterProfile keeps the `cluster` profile of docker-compose.yml coherent, since no engine
// here runs it (`docker compose --profile cluster config` checks the syntax; this checks the meaning):
// the single-node services stay outside the profile; six Redis nodes in cluster mode and an init that
// creates three masters with a replica each; three Keeper nodes and two ClickHouse replicas of the
// cluster the service is told to use; edges and workers scaled, exactly one ingester, and a load
// balancer that checks /readyz. The processes' environment passes the configuration's own validation.
func TestComposeClusterProfile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(interpolateDefaults(string(raw))), &doc); err != nil {
		t.Fatal(err)
	}
	single := []string{"redis", "clickhouse", "migrate", "edge", "worker", "ingest", "mcp"}
	for name, s := range doc.Services {
		inSingle := slices.Contains(single, name)
		switch {
		case inSingle && len(s.Profiles) != 0:
			t.Errorf("single-node service %s has profiles %v: `docker compose up` must start it", name, s.Profiles)
		case !inSingle && !slices.Equal(s.Profiles, []string{"cluster"}):
			t.Errorf("service %s has profiles %v, want [cluster]", name, s.Profiles)
		}
	}
	svc := func(name string) composeService {
		t.Helper()
		s, ok := doc.Services[name]
		if !ok {
			t.Fatalf("no service %s", name)
		}
		return s
	}

	// Redis Cluster: six nodes from one config file in cluster mode, durable and never evicting.
	var redisNodes []string
	for name, s := range doc.Services {
		if strings.HasPrefix(name, "redis-node-") {
			redisNodes = append(redisNodes, name)
			if len(s.Command) < 2 || s.Command[0] != "redis-server" || !slices.Contains(s.Command, name) {
				t.Errorf("%s: command %v, want redis-server with the cluster config, announcing %s", name, s.Command, name)
			}
			if mountedFile(s, s.Command[1]) != "../../deploy/redis/cluster.conf" {
				t.Errorf("%s does not mount deploy/redis/cluster.conf at %s", name, s.Command[1])
			}
		}
	}
	slices.Sort(redisNodes)
	if len(redisNodes) != 6 {
		t.Fatalf("redis nodes %v, want 6 (3 masters, 3 replicas)", redisNodes)
	}
	conf, err := os.ReadFile("../../deploy/redis/cluster.conf")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"cluster-enabled yes", "appendonly yes", "maxmemory-policy noeviction"} {
		if !slices.Contains(strings.Split(string(conf), "\n"), line) {
			t.Errorf("deploy/redis/cluster.conf lacks %q", line)
		}
	}
	initCmd := strings.Join(svc("redis-cluster-init").Command, " ")
	for _, want := range []string{"--cluster create", "--cluster-replicas 1", "redis-node-"} {
		if !strings.Contains(initCmd, want) {
			t.Errorf("redis-cluster-init does not run %q: %s", want, initCmd)
		}
	}

	// ClickHouse: the cluster named in remote_servers, with both servers as replicas of one shard,
	// Keeper nodes that are services here, and each server's macros.
	chConf := readXML(t, "../../deploy/clickhouse/cluster.xml")
	remote, ok := chConf.child("remote_servers")
	if !ok || len(remote.Nodes) != 1 {
		t.Fatalf("deploy/clickhouse/cluster.xml: want one cluster in remote_servers, have %+v", remote.Nodes)
	}
	clusterName := remote.Nodes[0].XMLName.Local
	var replicaHosts []string
	for _, shard := range remote.Nodes[0].children("shard") {
		if ir, _ := shard.child("internal_replication"); strings.TrimSpace(ir.Text) != "true" {
			t.Error("cluster.xml: internal_replication must be true (the Distributed tables write one replica)")
		}
		for _, r := range shard.children("replica") {
			h, _ := r.child("host")
			p, _ := r.child("port")
			replicaHosts = append(replicaHosts, strings.TrimSpace(h.Text)+":"+strings.TrimSpace(p.Text))
		}
	}
	if len(replicaHosts) != 2 {
		t.Errorf("cluster.xml replicas %v, want two", replicaHosts)
	}
	zk, _ := chConf.child("zookeeper")
	if len(zk.children("node")) == 0 {
		t.Error("cluster.xml has no zookeeper (Keeper) nodes")
	}
	for _, n := range zk.children("node") {
		h, _ := n.child("host")
		if k := svc(strings.TrimSpace(h.Text)); k.Image == "" || mountedFile(k, "/etc/clickhouse-keeper/keeper_config.xml") == "" {
			t.Errorf("Keeper node %s: no image or no mounted keeper_config.xml", h.Text)
		}
	}
	if _, ok := chConf.child("distributed_ddl"); !ok {
		t.Error("cluster.xml has no distributed_ddl (ON CLUSTER fails without it)")
	}
	for _, hp := range replicaHosts {
		host := strings.Split(hp, ":")[0]
		s := svc(host)
		if mountedFile(s, "/etc/clickhouse-server/config.d/cluster.xml") != "../../deploy/clickhouse/cluster.xml" {
			t.Errorf("%s does not mount deploy/clickhouse/cluster.xml", host)
		}
		own := mountedFile(s, "/etc/clickhouse-server/config.d/replica.xml")
		if own == "" {
			t.Errorf("%s mounts no replica.xml (macros)", host)
			continue
		}
		macros, _ := readXML(t, own).child("macros")
		shard, _ := macros.child("shard")
		replica, _ := macros.child("replica")
		if strings.TrimSpace(shard.Text) == "" || strings.TrimSpace(replica.Text) != host {
			t.Errorf("%s: macros shard %q replica %q, want a shard and replica %q", own, shard.Text, replica.Text, host)
		}
	}

	// The processes: every Redis node a seed, every replica named, the cluster named, and a
	// configuration that validates.
	for _, name := range []string{"cluster-edge", "cluster-worker", "cluster-ingest", "cluster-migrate"} {
		s := svc(name)
		e := s.Environment
		if e["SHARIAH_CLICKHOUSE_CLUSTER"] != clusterName {
			t.Errorf("%s: SHARIAH_CLICKHOUSE_CLUSTER %q, want %q (remote_servers)", name, e["SHARIAH_CLICKHOUSE_CLUSTER"], clusterName)
		}
		if _, err := analytics.DatabaseName(e["SHARIAH_CLICKHOUSE_URL"]); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if u, _ := url.Parse(e["SHARIAH_CLICKHOUSE_URL"]); !slices.Equal(strings.Split(u.Host, ","), replicaHosts) {
			t.Errorf("%s: SHARIAH_CLICKHOUSE_URL names %s, want the replicas %v", name, u.Host, replicaHosts)
		}
		if name == "cluster-migrate" {
			continue
		}
		opt, err := rueidis.ParseURL(e["SHARIAH_REDIS_URL"])
		if err != nil {
			t.Errorf("%s: SHARIAH_REDIS_URL: %v", name, err)
		}
		var seeds []string
		for _, a := range opt.InitAddress {
			seeds = append(seeds, strings.Split(a, ":")[0])
		}
		slices.Sort(seeds)
		if !slices.Equal(seeds, redisNodes) {
			t.Errorf("%s: SHARIAH_REDIS_URL seeds %v, want every node %v", name, seeds, redisNodes)
		}
		// the data directory is the container's mount point: stand in a directory of the test's
		vars := maps.Clone(e)
		vars["SHARIAH_DATA_DIR"] = t.TempDir()
		var c config.Config
		if err := cenv.ParseWithOptions(&c, cenv.Options{Environment: vars}); err != nil {
			t.Errorf("%s: environment: %v", name, err)
		} else if err := c.Validate(); err != nil {
			t.Errorf("%s: environment does not validate: %v", name, err)
		}
		if s.Build == nil || len(s.Command) == 0 {
			t.Errorf("%s: not built from the Dockerfile with a command", name)
		}
		if len(s.Ports) != 0 {
			t.Errorf("%s publishes %v: scaled processes are reached through the load balancer only", name, s.Ports)
		}
	}
	replicas := func(name string) int {
		if r := svc(name).Deploy.Replicas; r != nil {
			return *r
		}
		return 1
	}
	if n := replicas("cluster-edge"); n < 2 {
		t.Errorf("cluster-edge: %d replicas, want at least 2", n)
	}
	if n := replicas("cluster-worker"); n < 2 {
		t.Errorf("cluster-worker: %d replicas, want at least 2", n)
	}
	if n := replicas("cluster-ingest"); n != 1 {
		t.Errorf("cluster-ingest: %d replicas, want exactly 1 (one SEC rate limiter)", n)
	}
	if got := svc("cluster-edge").Command; len(got) == 0 || got[0] != "serve" {
		t.Errorf("cluster-edge runs %v", got)
	}

	// The load balancer: published, and checking each edge's readiness.
	lb := svc("cluster-lb")
	cfgPath := mountedFile(lb, "/usr/local/etc/haproxy/haproxy.cfg")
	if cfgPath == "" || len(lb.Ports) == 0 {
		t.Fatalf("cluster-lb: config %q, ports %v", cfgPath, lb.Ports)
	}
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"option httpchk GET /readyz", "cluster-edge:8000", "option forwardfor"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("%s lacks %q", cfgPath, want)
		}
	}
	if _, err := config.ParseProxies(svc("cluster-edge").Environment["SHARIAH_TRUSTED_PROXIES"]); err != nil {
		t.Errorf("cluster-edge SHARIAH_TRUSTED_PROXIES: %v", err)
	}
}
