package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/mcp"
)

// servePort serves the MCP port on a real socket (mcp.Serve: net/http's server with the API's limits)
// and returns its base URL.
func servePort(t *testing.T, h *harness, auth *mcp.Auth) string {
	t.Helper()
	d := h.d
	d.Auth = auth
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcp.Serve(ctx, mcp.New(d), l, auth, config.HTTPLimits{}) }()
	t.Cleanup(func() { cancel(); <-done }) // after the clients' cleanups (LIFO)
	return "http://" + l.Addr().String()
}

// answer is a response of the port, its body read.
type answer struct {
	status int
	header http.Header
	body   string
}

// envelope decodes the body as the error envelope, failing the test when it is not one.
func (a answer) envelope(t *testing.T) shariah.Error {
	t.Helper()
	var e struct {
		Code    *string         `json:"code"`
		Message *string         `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(a.body), &e) != nil ||
		e.Code == nil || e.Message == nil || e.Detail == nil {
		t.Fatalf("%d is not in the error envelope: %s %q", a.status, a.header.Get("Content-Type"), a.body)
	}
	var detail any
	_ = json.Unmarshal(e.Detail, &detail)
	return shariah.Error{Code: *e.Code, Message: *e.Message, Detail: detail}
}

// answerClient bounds a request that should be answered at once: a stream opened where a refusal was
// due fails the test instead of hanging it.
var answerClient = &http.Client{Timeout: time.Minute}

// do sends one request (body "" for none) with the headers and reads the answer.
func do(t *testing.T, method, url, body string, headers map[string]string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := answerClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %d, body: %v (a stream where an answer was due?)", method, url, resp.StatusCode, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// TestPortErrorsAreEnvelopes: every error the MCP port writes is the JSON error envelope: unknown paths
// (404), methods a path does not serve (405 with Allow), the MCP library's own plain-text errors (a
// wrong content type, an unknown session, a non-localhost Host on a loopback connection), a body too
// large (413) and a body too slow (408). Before the port's front door, these were text/plain.
func TestPortErrorsAreEnvelopes(t *testing.T) {
	t.Parallel()
	h := start(t)
	base := servePort(t, h, h.auth())
	for _, c := range []struct {
		method, path, body string
		headers            map[string]string
		status             int
		code               string
	}{
		{"GET", "/", "", nil, 404, shariah.ENOTFOUND},
		{"POST", "/nope", pingBody, nil, 404, shariah.ENOTFOUND},
		{"GET", "/sse/", "", nil, 404, shariah.ENOTFOUND},
		{"PUT", "/mcp", pingBody, nil, 405, shariah.ENOTALLOWED},
		{"PATCH", "/mcp", pingBody, nil, 405, shariah.ENOTALLOWED},
		{"BREW", "/mcp", "", nil, 405, shariah.ENOTALLOWED},
		{"POST", "/sse", pingBody, nil, 405, shariah.ENOTALLOWED},
		{"DELETE", "/sse", "", nil, 405, shariah.ENOTALLOWED},
		{"GET", "/message", "", nil, 405, shariah.ENOTALLOWED},
		// the library's plain-text answers, rewritten
		{"POST", "/mcp", pingBody, map[string]string{"Content-Type": "text/plain"}, 400, "HTTP_400"},
		{"POST", "/mcp", pingBody, map[string]string{"Mcp-Session-Id": "not-a-session"}, 404, shariah.ENOTFOUND},
		{"POST", "/mcp", pingBody, map[string]string{"Host": "attacker.example"}, 403, "HTTP_403"},
		{"GET", "/sse", "", map[string]string{"Host": "attacker.example"}, 403, "HTTP_403"},
	} {
		name := c.method + " " + c.path
		a := do(t, c.method, base+c.path, c.body, c.headers)
		if a.status != c.status {
			t.Errorf("%s %v: %d %q, want %d", name, c.headers, a.status, a.body, c.status)
			continue
		}
		if e := a.envelope(t); e.Code != c.code || e.Message == "" {
			t.Errorf("%s %v: %+v, want code %s", name, c.headers, e, c.code)
		}
		if c.status == 405 && !strings.Contains(a.header.Get("Allow"), "OPTIONS") {
			t.Errorf("%s: 405 without Allow (%q)", name, a.header.Get("Allow"))
		}
	}
	if a := do(t, "PUT", base+"/mcp", pingBody, nil); a.header.Get("Allow") != "GET, HEAD, POST, DELETE, OPTIONS" {
		t.Errorf("Allow of /mcp: %q", a.header.Get("Allow"))
	}
	if a := do(t, "POST", base+"/sse", pingBody, nil); a.header.Get("Allow") != "GET, OPTIONS" {
		t.Errorf("Allow of /sse: %q", a.header.Get("Allow"))
	}
	// A body above the limit, declared: 413 in the envelope before it is read.
	big := strings.Repeat(" ", config.DefaultHTTPLimits().BodyLimit+1)
	if a := do(t, "POST", base+"/mcp", big, nil); a.status != 413 || a.envelope(t).Code != "HTTP_413" {
		t.Errorf("large body: %d %q", a.status, a.body)
	}
	// What net/http answers itself, before any handler runs, on a raw connection: before, text/plain.
	for _, c := range []struct {
		name, request string
		status        int
	}{
		{"a malformed request line", "GARBAGE\r\n\r\n", 400},
		{"HTTP/1.1 without Host", "GET /mcp HTTP/1.1\r\n\r\n", 400},
		{"an unknown protocol version", "GET /mcp HTTP/9.9\r\nHost: x\r\n\r\n", 505},
		{"an unknown transfer encoding", "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
		{"a header block over 64 KiB", "GET /mcp HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 80<<10) + "\r\n\r\n", 431},
	} {
		a := rawExchange(t, strings.TrimPrefix(base, "http://"), c.request)
		if a.status != c.status {
			t.Errorf("%s: %d %q, want %d", c.name, a.status, a.body, c.status)
			continue
		}
		if e := a.envelope(t); e.Code != fmt.Sprintf("HTTP_%d", c.status) || e.Message == "" {
			t.Errorf("%s: %+v", c.name, e)
		}
	}
}

// rawExchange writes request on a new connection to addr and reads the answer until the server closes.
func rawExchange(t *testing.T, addr, request string) answer {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.WriteString(conn, request) }() // a 431 is answered before the whole block is read
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to %.40q: %v", request, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// sseStream is a raw SSE session: its message endpoint and its events' data, in order.
type sseStream struct {
	endpoint string
	data     chan string
	resp     *http.Response
}

// openSSE opens GET /sse with the headers; it returns the answer when it is not 200, else the stream
// once its endpoint event arrived.
func openSSE(t *testing.T, base string, headers map[string]string) (*sseStream, answer) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/sse", nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	}
	s := &sseStream{data: make(chan string, 16), resp: resp}
	t.Cleanup(s.close)
	events := make(chan [2]string, 16)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		var event string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event:"):
				event = strings.TrimSpace(line[len("event:"):])
			case strings.HasPrefix(line, "data:"):
				events <- [2]string{event, strings.TrimSpace(line[len("data:"):])}
			}
		}
	}()
	first, ok := <-events
	if !ok || first[0] != "endpoint" {
		t.Fatalf("no endpoint event: %v", first)
	}
	s.endpoint = first[1]
	if strings.HasPrefix(s.endpoint, "/") {
		s.endpoint = base + s.endpoint
	}
	go func() {
		for e := range events {
			if e[0] == "message" {
				s.data <- e[1]
			}
		}
		close(s.data)
	}()
	return s, answer{status: resp.StatusCode, header: resp.Header}
}

func (s *sseStream) close() { s.resp.Body.Close() }

// TestOriginChecked: a browser Origin not among the allowed ones is 403 in the envelope on every path
// and method (DNS rebinding); an allowed one works over Streamable HTTP and SSE and is reflected in
// Access-Control-Allow-Origin (never "*"); a request without Origin (not a browser) is served without
// CORS headers; the preflight names the headers an MCP client sends. The default list is localhost on
// any port; a configured list replaces it.
func TestOriginChecked(t *testing.T) {
	t.Parallel()
	h := start(t)
	base := servePort(t, h, h.auth())
	for _, bad := range []string{"https://attacker.example", "http://localhost.attacker.example", "null", "http://127.0.0.1.nip.io:8001", "file://"} {
		for _, r := range [][2]string{{"POST", "/mcp"}, {"GET", "/sse"}, {"POST", "/message?sessionId=x"}, {"OPTIONS", "/mcp"}, {"GET", "/nope"}} {
			body := ""
			if r[0] == "POST" {
				body = pingBody
			}
			a := do(t, r[0], base+r[1], body, map[string]string{"Origin": bad, "Access-Control-Request-Method": "POST"})
			if a.status != http.StatusForbidden || a.envelope(t).Code != shariah.EFORBIDDEN || a.header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("Origin %q %s %s: %d %q %q", bad, r[0], r[1], a.status, a.header.Get("Access-Control-Allow-Origin"), a.body)
			}
		}
	}

	// No Origin: served, no CORS header (the SSE transport used to send "*").
	s, a := openSSE(t, base, nil)
	if s == nil || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("SSE without Origin: %d, Access-Control-Allow-Origin %q", a.status, a.header.Get("Access-Control-Allow-Origin"))
	}
	s.close()
	// An allowed Origin: reflected, on the stream and on JSON answers.
	const local = "http://localhost:6274"
	s, a = openSSE(t, base, map[string]string{"Origin": local})
	if s == nil || a.header.Get("Access-Control-Allow-Origin") != local || !strings.Contains(a.header.Get("Vary"), "Origin") {
		t.Fatalf("SSE from %s: %d, Access-Control-Allow-Origin %q, Vary %q", local, a.status, a.header.Get("Access-Control-Allow-Origin"), a.header.Get("Vary"))
	}
	s.close()
	pre := do(t, "OPTIONS", base+"/mcp", "", map[string]string{"Origin": local, "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type, x-api-key"})
	if pre.status != http.StatusNoContent || pre.header.Get("Access-Control-Allow-Origin") != local ||
		!strings.Contains(pre.header.Get("Access-Control-Allow-Headers"), "X-API-Key") || !strings.Contains(pre.header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("preflight from %s: %d %v", local, pre.status, pre.header)
	}
	for _, o := range []string{"http://127.0.0.1:3000", "http://[::1]:8080", "https://localhost", "HTTP://LOCALHOST:5173"} {
		if a := do(t, "POST", base+"/mcp", pingBody, map[string]string{"Origin": o}); a.status == http.StatusForbidden || a.header.Get("Access-Control-Allow-Origin") != o {
			t.Errorf("local Origin %q: %d %q", o, a.status, a.body)
		}
	}
	for _, sse := range []bool{false, true} {
		c := httpClient(t, base, sse, map[string]string{"Origin": local})
		if res := callTool(t, c, "get_quote", map[string]any{"symbol": "AAPL"}); res.IsError {
			t.Fatalf("tool call from an allowed Origin (sse %v): %s", sse, text(res))
		}
	}

	// A configured list replaces the default.
	conf := servePort(t, h, h.auth(func(c *config.Config) { c.MCPAllowedOrigins = "https://app.example.com, http://dev.example.com:*" }))
	for o, allowed := range map[string]bool{"https://app.example.com": true, "https://app.example.com:443": true, "http://dev.example.com:9000": true,
		"http://app.example.com": false, "https://app.example.com:8443": false, local: false} {
		a := do(t, "POST", conf+"/mcp", pingBody, map[string]string{"Origin": o})
		if (a.status != http.StatusForbidden) != allowed {
			t.Errorf("configured origins, %q: %d, want allowed %v", o, a.status, allowed)
		}
	}
}

// keyedAuth makes a Pro key and returns it with an Auth that knows it, the keyless limits l and the
// trusted proxies.
func keyedAuth(t *testing.T, h *harness, l config.KeylessLimits, proxies []netip.Prefix) (*mcp.Auth, string) {
	t.Helper()
	k, err := h.svc.Keys.Create(context.Background(), "mcp-port-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"@example.com", account.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	var trusted []string
	for _, p := range proxies {
		trusted = append(trusted, p.String())
	}
	return h.auth(func(c *config.Config) { c.MCPKeylessLimits, c.TrustedProxies = l, strings.Join(trusted, ",") }), k.Key
}

// TestKeylessRateLimitPerAddress: a caller without a key gets Burst requests (the rate refills too
// slowly here to add one during the test), then 429 RATE_LIMITED in the envelope with Retry-After; a
// tool call inside an open SSE session is also answered on its stream with a JSON-RPC error saying so.
// Addresses are counted apart (behind a trusted proxy, by X-Forwarded-For), and a keyed caller from the
// exhausted address keeps its plan's limits. Before the limit, 2,000 keyless searches ran in 3.5 s.
func TestKeylessRateLimitPerAddress(t *testing.T) {
	t.Parallel()
	h := start(t)
	const burst = 6
	limits := config.KeylessLimits{Rate: 0.001, Burst: burst, StreamsPerAddress: 10, Streams: 10}
	auth, key := keyedAuth(t, h, limits, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")})
	base := servePort(t, h, auth)

	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	for i := 1; i <= burst; i++ {
		if a := do(t, "POST", base+"/mcp", pingBody, from("203.0.113.1")); a.status == http.StatusTooManyRequests {
			t.Fatalf("request %d of a burst of %d refused: %s", i, burst, a.body)
		}
	}
	a := do(t, "POST", base+"/mcp", pingBody, from("203.0.113.1"))
	if a.status != http.StatusTooManyRequests {
		t.Fatalf("request %d past a burst of %d: %d %s", burst+1, burst, a.status, a.body)
	}
	e := a.envelope(t)
	secs, err := strconv.Atoi(a.header.Get("Retry-After"))
	if e.Code != shariah.ERATELIMITED || err != nil || secs < 1 || e.Detail.(map[string]any)["retry_after_seconds"].(float64) != float64(secs) {
		t.Fatalf("429: Retry-After %q, %+v", a.header.Get("Retry-After"), e)
	}
	// Another address has its own bucket; a keyed caller from the exhausted one is not held to it.
	if a := do(t, "POST", base+"/mcp", pingBody, from("203.0.113.2")); a.status == http.StatusTooManyRequests {
		t.Fatalf("another address was refused: %s", a.body)
	}
	if a := do(t, "POST", base+"/mcp", pingBody, from("2001:db8:1:2::7")); a.status == http.StatusTooManyRequests {
		t.Fatalf("an IPv6 address was refused: %s", a.body)
	}
	keyed := map[string]string{"X-API-Key": key, "X-Forwarded-For": "203.0.113.1"}
	for _, sse := range []bool{false, true} {
		c := httpClient(t, base, sse, keyed)
		for i := 0; i < 2*burst; i++ {
			if res := callTool(t, c, "get_disclaimers", map[string]any{}); res.IsError {
				t.Fatalf("keyed call %d (sse %v) from the exhausted address: %s", i, sse, text(res))
			}
		}
	}
	// A keyless client over Streamable HTTP (initialize and initialized fit the burst) sees the refusal
	// as the call's JSON-RPC error, which the 429's body carries beside the envelope.
	c := httpClient(t, base, false, from("192.0.2.50"))
	var refusal error
	for i := 0; i < burst && refusal == nil; i++ {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "get_disclaimers", map[string]any{}
		_, refusal = c.CallTool(context.Background(), req)
	}
	if refusal == nil || !strings.Contains(refusal.Error(), shariah.ERATELIMITED+": Too many requests") {
		t.Fatalf("keyless client past the limit: %v", refusal)
	}

	// Inside an open SSE session (a fresh address): the stream and initialize fit the burst; the call past
	// it is 429 on the POST and a JSON-RPC error on the stream, with the call's id.
	s, a := openSSE(t, base, from("198.51.100.9"))
	if s == nil {
		t.Fatalf("SSE: %d %s", a.status, a.body)
	}
	post := func(body string) answer { return do(t, "POST", s.endpoint, body, from("198.51.100.9")) }
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	<-s.data // initialize's result
	for i := 4; i <= burst; i++ {
		if a := post(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`); a.status != http.StatusAccepted {
			t.Fatalf("SSE message %d: %d %s", i, a.status, a.body)
		}
		<-s.data
	}
	a = post(`{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"get_disclaimers","arguments":{}}}`)
	if a.status != http.StatusTooManyRequests || a.envelope(t).Code != shariah.ERATELIMITED || a.header.Get("Retry-After") == "" {
		t.Fatalf("SSE call past the burst: %d %q", a.status, a.body)
	}
	var rpc struct {
		ID    json.Number `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(<-s.data), &rpc); err != nil || rpc.ID != "77" || rpc.Error.Code == 0 || !strings.HasPrefix(rpc.Error.Message, shariah.ERATELIMITED+": ") {
		t.Fatalf("the refused SSE call's JSON-RPC error: %+v %v", rpc, err)
	}
}

// TestKeylessStreamCaps: a caller without a key holds at most StreamsPerAddress open streams (SSE and
// Streamable HTTP's GET), and all keyless callers at most Streams; past either, 429 RATE_LIMITED with
// Retry-After and the scope; a closed stream frees its place; keyed callers are not counted. Before the
// caps, 1,000 keyless SSE sessions were accepted.
func TestKeylessStreamCaps(t *testing.T) {
	t.Parallel()
	h := start(t)
	limits := config.KeylessLimits{Rate: 1000, Burst: 1000, StreamsPerAddress: 2, Streams: 3}
	auth, key := keyedAuth(t, h, limits, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")})
	base := servePort(t, h, auth)
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }

	a1, _ := openSSE(t, base, from("203.0.113.1"))
	a2, _ := openSSE(t, base, from("203.0.113.1"))
	if a1 == nil || a2 == nil {
		t.Fatal("the first two streams of an address were refused")
	}
	refused := func(addr, scope string) {
		t.Helper()
		s, a := openSSE(t, base, from(addr))
		if s != nil {
			t.Fatalf("stream from %s past the cap was opened", addr)
		}
		e := a.envelope(t)
		if a.status != http.StatusTooManyRequests || e.Code != shariah.ERATELIMITED || a.header.Get("Retry-After") == "" || e.Detail.(map[string]any)["scope"] != scope {
			t.Fatalf("stream from %s past the cap: %d %+v", addr, a.status, e)
		}
	}
	refused("203.0.113.1", "address")
	b, _ := openSSE(t, base, from("203.0.113.2"))
	if b == nil {
		t.Fatal("another address's stream was refused")
	}
	refused("203.0.113.3", "all")
	// Streamable HTTP's GET stream counts the same.
	if a := do(t, "GET", base+"/mcp", "", map[string]string{"X-Forwarded-For": "203.0.113.4", "Accept": "text/event-stream"}); a.status != http.StatusTooManyRequests {
		t.Fatalf("GET /mcp past the cap: %d %s", a.status, a.body)
	}
	// Keyed callers are not counted.
	for i := 0; i < 3; i++ {
		if s, a := openSSE(t, base, map[string]string{"X-API-Key": key, "X-Forwarded-For": "203.0.113.1"}); s == nil {
			t.Fatalf("keyed stream %d: %d %s", i, a.status, a.body)
		}
	}
	// A closed stream frees its place (once the server has seen it end).
	a1.close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, a := openSSE(t, base, from("203.0.113.1"))
		if s != nil {
			break
		}
		if a.status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("after a stream closed: %d %s", a.status, a.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
