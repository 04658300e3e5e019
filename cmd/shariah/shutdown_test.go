package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/internal/testcheck"
)

// TestShutdownDrainsBeforeTheUsageFlush: a request still in flight when SIGTERM arrives is answered,
// and its usage reaches ClickHouse, because the HTTP server drains before the usage writer (an actor
// added after it) makes its last flush. The request is held in flight by a language model that answers
// only once the server has stopped accepting connections.
func TestShutdownDrainsBeforeTheUsageFlush(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	if out, err := s.command([]string{"migrate"}).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	arrived, release := make(chan struct{}), make(chan struct{})
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"help"}}]}`)
	}))
	defer llm.Close()
	srv := startProcess(t, s, "all", "SHARIAH_USAGE_FLUSH_INTERVAL=1h", "SHARIAH_AGENT_LLM_URL="+llm.URL, "SHARIAH_AGENT_LLM_MODEL=test")
	out, err := s.command([]string{"keys", "create", "--email", "drain@example.com", "--plan", "pro"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("drain-flush-check-%d", time.Now().UnixNano()) // unique: the test may run more than once
	status := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", srv.base+"/api/terminal/agent", strings.NewReader(`{"command":"anything halal around here"}`))
		req.Header.Set("X-API-Key", strings.TrimSpace(string(out)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-ID", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			status <- err.Error()
			return
		}
		resp.Body.Close()
		status <- resp.Status
	}()
	select {
	case <-arrived:
	case s := <-status:
		t.Fatalf("answered before asking the model: %s\n%s", s, srv.logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("the agent never asked the model\n%s", srv.logs.String())
	}
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the API to stop accepting connections", func() bool {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(srv.base, "http://"), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	close(release)
	if s := <-status; s != "200 OK" {
		t.Fatalf("in-flight request: %s\n%s", s, srv.logs.String())
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30 s after SIGTERM\n%s", srv.logs.String())
	}
	n, err := s.usageRows(id)
	if err != nil || n != "1" {
		t.Fatalf("usage row of the drained request: %q %v\n%s", n, err, srv.logs.String())
	}
}

// waitFor polls cond until it holds, failing the test after 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testcheck.WaitFor(t, 30*time.Second, what, cond)
}
