// Package mcp serves the service to AI assistants over the Model Context Protocol (mark3labs/mcp-go):
// stdio by default, Streamable HTTP at /mcp and the older SSE transport on the MCP port. Tools and
// resources call the same domain code as the REST API; they are registered by the MCP issue.
package mcp

import (
	"context"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/server"

	shariah "github.com/shariah-screen/shariah"
)

// Instructions tell an assistant what the service is and what its verdicts are not.
const Instructions = `Shariah screening and Islamic-finance data service. It screens equities, ETFs, portfolios and
sukuk under AAOIFI, DJIM, FTSE, MSCI and S&P rules from public financial data, and computes zakat and
dividend purification estimates. Its verdicts are automated analysis of public financial data; they are
not a religious ruling (fatwa). Data marked illustrative is not from filings.`

// New returns the MCP server with its resources.
func New(d Deps) *server.MCPServer {
	opts := []server.ServerOption{
		server.WithInstructions(Instructions),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
	}
	if d.Auth != nil && d.Auth.Required {
		opts = append(opts, server.WithToolHandlerMiddleware(d.Auth.meter()))
	}
	s := server.NewMCPServer("shariah", shariah.APIVersion, opts...)
	AddResources(s, d)
	addTools(s, d)
	return s
}

// HTTP serves Streamable HTTP at /mcp and SSE at /sse (+ /message) on addr until ctx ends.
// With auth required, every request needs a valid X-API-Key (else 401) and tool calls are metered.
func HTTP(ctx context.Context, s *server.MCPServer, addr string, auth *Auth) error {
	hs := &http.Server{Addr: addr, Handler: Handler(s, auth), ReadHeaderTimeout: 10 * time.Second}
	sse := hs.Handler.(*authMux).sse
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = sse.Shutdown(sctx)
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

// authMux serves the MCP transports, behind the key guard when auth is required.
type authMux struct {
	http.Handler
	sse *server.SSEServer
}

// Handler returns the HTTP handler of the MCP transports (/mcp, /sse, /message).
func Handler(s *server.MCPServer, auth *Auth) http.Handler {
	var httpOpts []server.StreamableHTTPOption
	var sseOpts []server.SSEOption
	if auth != nil && auth.Required {
		httpOpts = append(httpOpts, server.WithHTTPContextFunc(auth.withKey))
		sseOpts = append(sseOpts, server.WithSSEContextFunc(auth.withKey))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s, httpOpts...))
	sse := server.NewSSEServer(s, sseOpts...)
	mux.Handle("/sse", sse)
	mux.Handle("/message", sse)
	var h http.Handler = mux
	if auth != nil && auth.Required {
		h = auth.guard(mux)
	}
	return &authMux{Handler: h, sse: sse}
}
