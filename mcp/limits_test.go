package mcp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/mcp"
)

// rss is this process's resident set size in bytes (/proc/self/status).
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// sendHuge sends a POST /mcp whose body is 200 MB (declared, or chunked) while reading the answer, and
// returns the answer's status: the server must answer before (and without) reading the body.
func sendHuge(t *testing.T, addr string, chunked bool) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const size = 200 << 20
	head := "POST /mcp HTTP/1.1\r\nHost: mcp\r\nContent-Type: application/json\r\n"
	if chunked {
		head += "Transfer-Encoding: chunked\r\n\r\n"
	} else {
		head += "Content-Length: " + strconv.Itoa(size) + "\r\n\r\n"
	}
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	go func() { // write until the whole body is sent or the server closes the connection
		chunk := make([]byte, 64<<10)
		for i := range chunk {
			chunk[i] = ' '
		}
		for sent := 0; sent < size; sent += len(chunk) {
			if chunked {
				if _, err := fmt.Fprintf(conn, "%x\r\n", len(chunk)); err != nil {
					return
				}
			}
			if _, err := conn.Write(chunk); err != nil {
				return
			}
			if chunked {
				if _, err := io.WriteString(conn, "\r\n"); err != nil {
					return
				}
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a 200 MB body (chunked %v): %v", chunked, err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode == http.StatusRequestEntityTooLarge && !strings.Contains(string(body), `"code":"HTTP_413"`) {
		t.Fatalf("413 without the error envelope: %s", body)
	}
	return resp.StatusCode
}

// TestHTTPBodyLimitAndReadTimeout serves the MCP port on a real socket with the API's limits (a short
// read timeout for the test): a 200 MB tool call, declared or chunked, is 413 and memory does not grow
// with it; bodies that trickle are cut by the read timeout (408, connection closed); an SSE stream
// opened before them outlives the read timeout and still carries tool results. Not parallel: it reads
// the process's RSS, which other tests would move.
func TestHTTPBodyLimitAndReadTimeout(t *testing.T) {
	h := start(t)
	limits := config.DefaultHTTPLimits()
	limits.ReadTimeout, limits.WriteTimeout = time.Second, 5*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcp.Serve(ctx, mcp.New(h.d), l, nil, limits) }()
	t.Cleanup(func() { cancel(); <-done })
	addr := l.Addr().String()

	before := rss(t)
	for _, chunked := range []bool{false, true} {
		if st := sendHuge(t, addr, chunked); st != http.StatusRequestEntityTooLarge {
			t.Fatalf("200 MB body (chunked %v): %d, want 413", chunked, st)
		}
	}
	grew := rss(t) - before
	t.Logf("RSS %d MiB before two 200 MB bodies, %+d MiB after", before>>20, grew>>20)
	if grew > 100<<20 {
		t.Fatalf("RSS grew by %d MiB for bodies that must not be read", grew>>20)
	}

	// An SSE session, opened before the slow bodies.
	sse, err := client.NewSSEMCPClient("http://"+addr+"/sse", transport.WithHeaders(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sse.Close() })
	if err := sse.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "0"}
	if _, err := sse.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	opened := time.Now()

	// Slow bodies: 20 connections declare 1000 bytes and send 10.
	conns := make([]net.Conn, 20)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: mcp\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\""); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for i, c := range conns {
		// Wait (up to 30 s) for the server to answer and close the connection.
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		got, err := io.ReadAll(c)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("slow body %d: connection still open after 30 s (read timeout %s)", i, limits.ReadTimeout)
		}
		if !strings.HasPrefix(string(got), "HTTP/1.1 408") {
			t.Fatalf("slow body %d: %q (%v), want 408 and the connection closed", i, got, err)
		}
	}
	if time.Since(opened) < limits.ReadTimeout {
		t.Fatal("the slow bodies were cut before the read timeout: the stream check below would prove nothing")
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "get_disclaimers", map[string]any{}
	if res, err := sse.CallTool(context.Background(), req); err != nil || res.IsError {
		t.Fatalf("the SSE stream did not outlive the read timeout: %v %v", err, res)
	}
}
