package edge_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/agent"
)

func TestTerminalAgent(t *testing.T) {
	t.Parallel()
	var asked string
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var in struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		asked = in.Messages[len(in.Messages)-1].Content
		w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"screen MSFT"},"finish_reason":"stop"}]}`))
	}))
	defer llm.Close()
	e := setup(t, options{agentLLM: &agent.LLM{BaseURL: llm.URL + "/v1", Model: "test", APIKey: "sk-test-secret"}})
	k := key(e.newKey(t, account.PlanPro))
	ask := func(cmd string) map[string]any {
		t.Helper()
		r := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": cmd}, k)
		if r.StatusCode != 200 {
			t.Fatalf("%q: %d %s", cmd, r.StatusCode, r.body)
		}
		if strings.Contains(string(r.body), "sk-test-secret") {
			t.Fatal("the model's key leaked into a response")
		}
		return r.json(t)
	}
	calls := func(m map[string]any) []map[string]any {
		var out []map[string]any
		for _, c := range m["tool_calls"].([]any) {
			out = append(out, c.(map[string]any))
		}
		return out
	}

	m := ask("screen AAPL")
	cs := calls(m)
	direct := e.do(t, "GET", "/api/screen/AAPL", nil, k).json(t)
	if m["mode"] != "rules" || len(cs) != 1 || cs[0]["tool"] != "screen_stock" ||
		cs[0]["result"].(map[string]any)["compliance_status"] != direct["compliance_status"] {
		t.Fatalf("screen AAPL: %v", m)
	}
	m = ask("compare MSFT GOOGL")
	if cs = calls(m); len(cs) != 2 || cs[1]["arguments"].(map[string]any)["symbol"] != "GOOGL" {
		t.Fatalf("compare: %v", m)
	}
	// MSFT stands on illustrative inputs in the default pack: the agent's sentence says so beside the verdict.
	msft := cs[0]["result"].(map[string]any)
	if msft["data_quality"].(map[string]any)["illustrative"] != true ||
		!strings.Contains(m["answer"].(string), "MSFT (") || !strings.Contains(m["answer"].(string), msft["compliance_status"].(string)+" (illustrative) under ") {
		t.Fatalf("compare answer without MSFT's illustrative mark: %v", m["answer"])
	}
	m = ask("is NVDA halal under djim")
	if cs = calls(m); len(cs) != 1 || cs[0]["arguments"].(map[string]any)["methodology"] != "djim" || m["intent"] != "screen" {
		t.Fatalf("is NVDA halal under djim: %v", m)
	}
	m = ask("zakat on 10 AAPL and 2000 cash")
	cs = calls(m)
	if len(cs) != 1 || cs[0]["tool"] != "calculate_zakat" {
		t.Fatalf("zakat: %v", m)
	}
	res := cs[0]["result"].(map[string]any)
	if dec(t, res["cash"]).String() != "2000" || len(res["holdings"].([]any)) != 1 || !strings.Contains(m["answer"].(string), "zakat") && !strings.Contains(m["answer"].(string), "Zakat") {
		t.Fatalf("zakat result: %v", m)
	}
	// Outside the grammar, the configured model rewrites the question; what runs is a known tool.
	m = ask("what do you think about microsoft?")
	if m["mode"] != "llm" || m["command"] != "screen MSFT" || asked != "what do you think about microsoft?" || calls(m)[0]["tool"] != "screen_stock" {
		t.Fatalf("llm rewrite: %v", m)
	}
	// An unknown symbol is a tool error in the answer, not a failed request.
	m = ask("screen $NOPE123")
	if m["intent"] != "screen" || !strings.Contains(m["answer"].(string), "NOPE123") {
		t.Fatalf("unknown symbol: %v", m)
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"command": strings.Repeat("x", 501)}, map[string]any{"command": 5}} {
		if r := e.do(t, "POST", "/api/terminal/agent", bad, k); r.StatusCode != 422 {
			t.Fatalf("%v: %d", bad, r.StatusCode)
		}
	}
}

func TestTerminalAgentIsDeterministicWithoutAModel(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	r1 := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": "what do you think about microsoft?"}, k).json(t)
	if r1["mode"] != "rules" || r1["intent"] != "unknown" || len(r1["tool_calls"].([]any)) != 0 {
		t.Fatalf("no model: %v", r1)
	}
	a := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": "quote MSFT"}, k).json(t)
	b := e.do(t, "POST", "/api/terminal/agent", map[string]any{"command": "quote MSFT"}, k).json(t)
	if a["answer"] != b["answer"] || a["answer"] == "" {
		t.Fatalf("same command, different answers: %v / %v", a["answer"], b["answer"])
	}
}
