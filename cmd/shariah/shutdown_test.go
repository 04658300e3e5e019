package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestShutdownDrainsBeforeTheUsageFlush: a request still in flight when SIGTERM arrives is answered,
// and its usage reaches ClickHouse, because the HTTP server drains before the usage writer (an actor
// added after it) makes its last flush. The request is held in flight by a language model that answers
// only once the server has stopped accepting connections.
func TestShutdownDrainsBeforeTheUsageFlush(t *testing.T) {
	if out, err := command([]string{"migrate"}).CombinedOutput(); err != nil {
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
	port, _ := testsvc.FreePort()
	mcpPort, _ := testsvc.FreePort()
	var logs bytes.Buffer
	srv := command([]string{"all"}, fmt.Sprintf("SHARIAH_HTTP_ADDR=127.0.0.1:%d", port), fmt.Sprintf("SHARIAH_MCP_ADDR=127.0.0.1:%d", mcpPort),
		"SHARIAH_USAGE_FLUSH_INTERVAL=1h", "SHARIAH_AGENT_LLM_URL="+llm.URL, "SHARIAH_AGENT_LLM_MODEL=test")
	srv.Stderr = &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitFor(t, "the API to answer", func() bool {
		resp, err := http.Get(base + "/api/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	out, err := command([]string{"keys", "create", "--email", "drain@example.com", "--plan", "pro"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(out))
	type result struct {
		status int
		err    error
	}
	answered := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/api/terminal/agent", strings.NewReader(`{"command":"anything halal around here"}`))
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-ID", "drain-flush-check")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- result{err: err}
			return
		}
		resp.Body.Close()
		answered <- result{status: resp.StatusCode}
	}()
	select {
	case <-arrived:
	case r := <-answered:
		t.Fatalf("answered before asking the model: %+v\n%s", r, logs.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("the agent never asked the model\n%s", logs.String())
	}
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the API to stop accepting connections", func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	close(release)
	if r := <-answered; r.err != nil || r.status != 200 {
		t.Fatalf("in-flight request: %+v\n%s", r, logs.String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30 s after SIGTERM\n%s", logs.String())
	}
	n, err := exec.Command("clickhouse-client", "--port", fmt.Sprint(chSrv.Port), "-q",
		"SELECT count() FROM cmdtest.usage_events WHERE request_id = 'drain-flush-check'").Output()
	if err != nil || strings.TrimSpace(string(n)) != "1" {
		t.Fatalf("usage row of the drained request: %q %v\n%s", n, err, logs.String())
	}
}

// waitFor polls cond until it holds, failing the test after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
