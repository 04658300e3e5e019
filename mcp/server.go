// Package mcp serves the service to AI assistants over the Model Context Protocol (mark3labs/mcp-go):
// stdio by default, Streamable HTTP at /mcp and the older SSE transport on the MCP port. Tools and
// resources call the same domain code as the REST API; they are registered by the MCP issue.
package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/server"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/config"
)

// Instructions tell an assistant what the service is and what its verdicts are not.
const Instructions = `Shariah screening and Islamic-finance data service. It screens equities, ETFs, portfolios and
sukuk under AAOIFI, DJIM, FTSE, MSCI and S&P rules from public financial data, and computes zakat and
dividend purification estimates. Its verdicts are automated analysis of public financial data; they are
not a religious ruling (fatwa). Data marked illustrative is not from filings.`

// New returns the MCP server with its resources and tools, every tool call going through the access
// policy of d.Auth (metering with a key; over HTTP without one, read-only tools only unless Keyless is
// full). A nil Auth is the keyless read-only policy without metering.
func New(d Deps) *server.MCPServer {
	a := d.Auth
	if a == nil {
		a = &Auth{}
	}
	a.fresh = d.fresh
	var s *server.MCPServer
	opts := []server.ServerOption{
		server.WithInstructions(Instructions),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithToolHandlerMiddleware(a.policy(func(name string) *server.ServerTool { return s.GetTool(name) })),
	}
	s = server.NewMCPServer("shariah", shariah.APIVersion, opts...)
	AddResources(s, d)
	addTools(s, d)
	return s
}

// HTTP serves Streamable HTTP at /mcp and SSE at /sse (+ /message) on addr until ctx ends, within the
// same limits as the REST API (body size, read, write and idle timeouts).
func HTTP(ctx context.Context, s *server.MCPServer, addr string, auth *Auth, limits config.HTTPLimits) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return Serve(ctx, s, l, auth, limits)
}

// Serve is HTTP on a listener.
func Serve(ctx context.Context, s *server.MCPServer, l net.Listener, auth *Auth, limits config.HTTPLimits) error {
	limits = limits.OrDefault()
	h := Handler(s, auth, limits)
	// net/http's own log lines (a handler's panic, a bad TLS handshake) go to the service's log.
	hs := &http.Server{Handler: h, ReadHeaderTimeout: limits.ReadTimeout, ReadTimeout: limits.ReadTimeout,
		WriteTimeout: limits.WriteTimeout, IdleTimeout: limits.IdleTimeout, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(envelopeListener{l}) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.(*transports).sse.Shutdown(sctx)
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// Stdio serves over standard input and output until ctx ends.
func Stdio(ctx context.Context, s *server.MCPServer) error {
	return server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
}

// transports serves the MCP transports behind the body limit and the key guard.
type transports struct {
	http.Handler
	sse *server.SSEServer
}

// Handler returns the HTTP handler of the MCP transports (/mcp, /sse, /message): a browser's Origin
// must be allowed (403), unknown paths are 404 and unserved methods 405 (front); bodies above the
// limit are 413 before they are read; an X-API-Key is checked (401/403, or 503 when the key store is
// down) and identifies the caller; callers without a key are held to the keyless rate and stream caps
// (429); streams (GET) get a write deadline per write instead of one for the whole response. Every
// error the handler writes is in the error envelope (JSON-RPC errors of the protocol excepted).
func Handler(s *server.MCPServer, auth *Auth, limits config.HTTPLimits) http.Handler {
	if auth == nil {
		auth = &Auth{}
	}
	limits = limits.OrDefault()
	// Keep-alive events on idle streams, so a peer that went away is noticed by the write deadline.
	keepAlive := min(limits.WriteTimeout/2, 15*time.Second)
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s, server.WithHeartbeatInterval(keepAlive)))
	sse := server.NewSSEServer(s, server.WithKeepAliveInterval(keepAlive))
	mux.Handle("/sse", sse)
	mux.Handle("/message", sse)
	origins := auth.Origins
	if origins == nil {
		origins = config.DefaultMCPOrigins()
	}
	kl := newKeyless(auth.KeylessLimits, auth.TrustedProxies, sse)
	return &transports{Handler: &front{next: limitRequests(limits, auth.guard(limits.RedisTimeout, kl.guard(mux))), origins: origins}, sse: sse}
}
