package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestUnknownClickHouseClusterIsAStartupError: migrate and serve refuse a cluster the ClickHouse does not
// know, naming the setting; a ClickHouse that does not answer at start does not stop serve (it runs
// degraded, as without a cluster).
func TestUnknownClickHouseClusterIsAStartupError(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t) // a single server: it knows no cluster
	for _, sub := range []string{"migrate", "serve"} {
		port, _ := testsvc.FreePort()
		cmd := s.command([]string{sub}, "SHARIAH_CLICKHOUSE_CLUSTER=nope", fmt.Sprintf("SHARIAH_HTTP_ADDR=127.0.0.1:%d", port))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("%s succeeded with an unknown cluster:\n%s", sub, out.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s still running 20 s after its start with an unknown cluster:\n%s", sub, out.String())
		}
		if !strings.Contains(out.String(), `SHARIAH_CLICKHOUSE_CLUSTER: unknown ClickHouse cluster "nope"`) {
			t.Fatalf("%s's error does not name the setting and the cluster:\n%s", sub, out.String())
		}
	}
	closed, _ := testsvc.FreePort()
	e := startEdge(t, s, fmt.Sprintf("SHARIAH_CLICKHOUSE_URL=clickhouse://127.0.0.1:%d/shariah", closed), "SHARIAH_CLICKHOUSE_CLUSTER=nope")
	if !strings.Contains(e.logs.String(), "SHARIAH_CLICKHOUSE_CLUSTER is not checked") {
		t.Fatalf("no warning that the cluster is unchecked:\n%s", e.logs.String())
	}
}

// TestMigrateAndServeOnAReplicatedClickHouse: the binary in cluster mode on two replicas. migrate creates
// the replicated schema (again: nothing to do); serve records usage through the first replica, then,
// with it stopped, through the second, and the usage route answers every request from the second.
func TestMigrateAndServeOnAReplicatedClickHouse(t *testing.T) {
	t.Parallel()
	c := testsvc.MustClickHouseCluster(t, 2)
	s := newTestEnv(t)
	env := []string{"SHARIAH_CLICKHOUSE_URL=" + c.URL("shariah"), "SHARIAH_CLICKHOUSE_CLUSTER=" + c.Name}
	for i, want := range []string{"migration applied", "schema up to date"} {
		out, err := s.command([]string{"migrate"}, env...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("migrate %d: %v\n%s", i+1, err, out)
		}
	}
	out, err := s.command([]string{"keys", "create", "--email", "replicas@example.com", "--plan", "pro"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(out))
	e := startEdge(t, s, env...)
	get := func(path, id string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", e.base+path, nil)
		req.Header.Set("X-API-Key", key)
		if id != "" {
			req.Header.Set("X-Request-ID", id)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v\n%s", path, err, resp, e.logs.String())
		}
		return resp
	}
	get("/api/auth/me", "replica-check-1").Body.Close()
	r2, err := analytics.Open(c.Replicas[1].ClickHouseURL("shariah"))
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	held := func(id string) bool {
		var n uint64
		err := r2.Conn.QueryRow(context.Background(), "SELECT toUInt64(count()) FROM shariah.usage_events_local WHERE request_id = ?", id).Scan(&n)
		return err == nil && n == 1
	}
	waitFor(t, "request replica-check-1 on the second replica", func() bool { return held("replica-check-1") })
	c.Replicas[0].Stop()
	get("/api/auth/me", "replica-check-2").Body.Close()
	waitFor(t, "request replica-check-2 on the second replica", func() bool { return held("replica-check-2") })
	resp := get("/api/auth/me/usage/recent?limit=10", "")
	defer resp.Body.Close()
	var recent struct {
		Requests []struct {
			RequestID string `json:"request_id"`
		} `json:"requests"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&recent); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recent.Requests {
		ids = append(ids, r.RequestID)
	}
	if got := strings.Join(ids, ","); !strings.Contains(got, "replica-check-1") || !strings.Contains(got, "replica-check-2") {
		t.Fatalf("recent requests with the first replica down: %s", got)
	}
}
