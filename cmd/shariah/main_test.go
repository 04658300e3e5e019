package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	yaml "github.com/oasdiff/yaml3"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

var bin string // the binary under test, built once by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cmd-test-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "shariah")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := testsvc.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// testEnv is what the processes a test starts use: a Redis of the test's own, a database of its own
// on the ClickHouse the package's tests share, and a usage spool of its own (never the working
// directory), so that tests can run in parallel.
type testEnv struct {
	redis    *testsvc.Proc // nil on a Redis Cluster (newClusterEnv)
	redisURL string
	chURL    string
	chPort   string
	db       string
	spool    string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	r := testsvc.MustRedis(t)
	s := newEnvOn(t, r.RedisURL())
	s.redis = r
	return s
}

// newEnvOn is a test environment on the Redis (or Redis Cluster) at redisURL.
func newEnvOn(t *testing.T, redisURL string) *testEnv {
	t.Helper()
	chURL := testsvc.ClickHouseDB(t)
	u, err := url.Parse(chURL)
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{redisURL: redisURL, chURL: chURL, chPort: u.Port(),
		db: strings.TrimPrefix(u.Path, "/"), spool: t.TempDir()}
}

// command runs the binary with the test's services configured; extraEnv overrides them. The request's
// Redis call timeout is 10 s, not the 1 s default: these tests count what is served, and on two cores
// shared by every package's tests a Redis call has taken over half a second (the hung-Redis tests,
// edge/deadline_test.go, keep the default).
func (s *testEnv) command(args []string, extraEnv ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SHARIAH_REDIS_URL="+s.redisURL,
		"SHARIAH_CLICKHOUSE_URL="+s.chURL, "SHARIAH_USAGE_SPOOL_DIR="+s.spool,
		"SHARIAH_REDIS_TIMEOUT=10s",
		"SHARIAH_RATE_LIMITS=off") // rate limits have their own tests (edge, redis)
	cmd.Env = append(cmd.Env, extraEnv...)
	return cmd
}

// usageRows counts the usage events of one request id in the test's ClickHouse database.
func (s *testEnv) usageRows(id string) (string, error) {
	n, err := exec.Command("clickhouse-client", "--port", s.chPort, "-q",
		"SELECT count() FROM "+s.db+".usage_events WHERE request_id = '"+id+"'").Output()
	return strings.TrimSpace(string(n)), err
}

func TestBadConfigurationNamesEveryProblem(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	out, err := s.command([]string{"serve"}, "SHARIAH_HTTP_ADDR=nope", "SHARIAH_USAGE_BATCH_SIZE=0", "SHARIAH_CLICKHOUSE_URL=http://x").CombinedOutput()
	if err == nil {
		t.Fatal("serve started with a bad configuration")
	}
	for _, want := range []string{"SHARIAH_HTTP_ADDR", "SHARIAH_USAGE_BATCH_SIZE", "SHARIAH_CLICKHOUSE_URL"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not name %s:\n%s", want, out)
		}
	}
	if out, err := s.command([]string{"frobnicate"}).CombinedOutput(); err == nil || !strings.Contains(string(out), "unknown command") {
		t.Fatalf("unknown command: %v %s", err, out)
	}
}

func TestKeysCommands(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	var stdout, stderr bytes.Buffer
	c := s.command([]string{"keys", "create", "--email", "ops@example.com", "--plan", "enterprise"})
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	full := strings.TrimSpace(stdout.String())
	if !account.WellFormedKey(full) || strings.Contains(stderr.String(), full) {
		t.Fatalf("stdout %q (the key, once), stderr %q (no key)", full, stderr.String())
	}
	prefix := account.PublicPrefix(full)
	rc, err := sredis.Open(s.redis.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	store := sredis.NewKeyStore(rc)
	ctx := context.Background()
	k, err := store.KeyByHash(ctx, account.HashKey(full))
	if err != nil || k.Plan != "enterprise" || !k.Active {
		t.Fatalf("stored %+v %v", k, err)
	}
	if out, err := s.command([]string{"keys", "set-plan", prefix, "pro"}).CombinedOutput(); err != nil {
		t.Fatalf("set-plan: %v %s", err, out)
	}
	if out, err := s.command([]string{"keys", "set-plan", prefix, "platinum"}).CombinedOutput(); err == nil {
		t.Fatalf("set-plan to an unknown plan succeeded: %s", out)
	}
	if out, err := s.command([]string{"keys", "revoke", prefix}).CombinedOutput(); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	k, _ = store.KeyByHash(ctx, account.HashKey(full))
	if k.Plan != "pro" || k.Active {
		t.Fatalf("after set-plan and revoke: %+v", k)
	}
}

// TestServeShutsDownGracefully: migrate, serve, answer, then SIGTERM ends the process cleanly (exit 0)
// after flushing the usage of the requests it served.
func TestServeShutsDownGracefully(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	if out, err := s.command([]string{"migrate"}).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	port, _ := testsvc.FreePort()
	mcpPort, _ := testsvc.FreePort()
	var logs bytes.Buffer
	srv := s.command([]string{"all"}, fmt.Sprintf("SHARIAH_HTTP_ADDR=127.0.0.1:%d", port), fmt.Sprintf("SHARIAH_MCP_ADDR=127.0.0.1:%d", mcpPort),
		"SHARIAH_USAGE_FLUSH_INTERVAL=1h") // only the shutdown flush can write the usage
	srv.Stderr = &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	var resp *http.Response
	var err error
	for range 100 {
		if resp, err = http.Get(base + "/api/health"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("never served: %v\n%s", err, logs.String())
	}
	resp.Body.Close()
	out, err := s.command([]string{"keys", "create", "--email", "shutdown@example.com", "--plan", "pro"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(out))
	req, _ := http.NewRequest("GET", base+"/api/auth/me", nil)
	req.Header.Set("X-API-Key", key)
	id := fmt.Sprintf("shutdown-flush-check-%d", time.Now().UnixNano()) // unique: the test may run more than once
	req.Header.Set("X-Request-ID", id)
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("auth/me: %v %v", err, resp)
	}
	resp.Body.Close()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("still running 20 s after SIGTERM\n%s", logs.String())
	}
	if strings.Contains(logs.String(), key) {
		t.Fatal("the key appears in the server's log")
	}
	// The catalog is built before the port opens (warmCatalog), not by the first request.
	if b, l := strings.Index(logs.String(), `"msg":"catalog built"`), strings.Index(logs.String(), `"msg":"http listening"`); b < 0 || l < 0 || b > l {
		t.Fatalf("catalog built at %d, listening at %d in the log:\n%s", b, l, logs.String())
	}
	n, err := s.usageRows(id)
	if err != nil || n != "1" {
		t.Fatalf("usage row after shutdown flush: %q %v", n, err)
	}
}

// TestComposeFileDescribesTheService keeps docker-compose.yml valid and complete (no engine here to run it).
func TestComposeFileDescribesTheService(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services map[string]struct {
			Image   string   `yaml:"image"`
			Build   any      `yaml:"build"`
			Command []string `yaml:"command"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"edge": "serve", "worker": "worker", "ingest": "ingest", "mcp": "mcp", "migrate": "migrate"}
	for name, sub := range want {
		s, ok := doc.Services[name]
		if !ok || s.Build == nil || len(s.Command) == 0 || s.Command[0] != sub {
			t.Errorf("service %s: %+v, want built from the Dockerfile running %q", name, s, sub)
		}
	}
	for _, svc := range []string{"redis", "clickhouse"} {
		if doc.Services[svc].Image == "" {
			t.Errorf("service %s has no image", svc)
		}
	}
	if _, err := os.Stat("../../Dockerfile"); err != nil {
		t.Error(err)
	}
}
