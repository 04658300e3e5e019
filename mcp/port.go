package mcp

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/config"
)

// routes are the MCP port's paths and the methods each serves; OPTIONS (the CORS preflight) is
// answered on each of them.
var routes = map[string][]string{
	"/mcp":     {http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete},
	"/sse":     {http.MethodGet},
	"/message": {http.MethodPost},
}

// corsHeaders are the request headers a browser client of an allowed origin may send.
const corsHeaders = "Content-Type, Accept, X-API-Key, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"

// front is the MCP port's front door, before the limits and the key guard: a request whose Origin is
// not allowed is 403 (DNS rebinding: a web page must not drive a local server; a request without an
// Origin, from a client that is not a browser, passes), an unknown path is 404, a method a path does
// not serve is 405 with Allow, OPTIONS is the CORS preflight (204). Every response of the port passes
// through an envelopeWriter.
type front struct {
	next    http.Handler
	origins config.Origins
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ew := &envelopeWriter{ResponseWriter: w}
	defer ew.finish()
	if origin := r.Header.Get("Origin"); origin != "" {
		if !f.origins.Allows(origin) {
			writeError(ew, http.StatusForbidden, shariah.EFORBIDDEN,
				fmt.Sprintf("Origin %q may not call the MCP port: it is not among the allowed origins (SHARIAH_MCP_ALLOWED_ORIGINS).", clip(origin, 200)), nil)
			return
		}
		ew.allowOrigin = origin
	}
	methods, ok := routes[r.URL.Path]
	if !ok {
		writeError(ew, http.StatusNotFound, shariah.ENOTFOUND, "Not found. The MCP port serves /mcp (Streamable HTTP), and /sse with /message (SSE).", nil)
		return
	}
	allow := strings.Join(append(slices.Clone(methods), http.MethodOptions), ", ")
	switch {
	case r.Method == http.MethodOptions:
		ew.Header().Set("Allow", allow)
		if ew.allowOrigin != "" {
			ew.Header().Set("Access-Control-Allow-Methods", allow)
			ew.Header().Set("Access-Control-Allow-Headers", corsHeaders)
			ew.Header().Set("Access-Control-Max-Age", "600")
		}
		ew.WriteHeader(http.StatusNoContent)
	case !slices.Contains(methods, r.Method):
		ew.Header().Set("Allow", allow)
		writeError(ew, http.StatusMethodNotAllowed, shariah.ENOTALLOWED, fmt.Sprintf("Method not allowed: %s serves %s.", r.URL.Path, allow), nil)
	default:
		f.next.ServeHTTP(ew, r)
	}
}

// envelopeWriter is the one writer of the port's response headers and error bodies. Every response
// gets Vary: Origin and, for an allowed Origin, that origin reflected in Access-Control-Allow-Origin
// (never "*", whatever a transport set). An error status written without a JSON body (net/http's and
// the MCP library's plain-text http.Error answers) is rewritten into the error envelope with the same
// status: HTTP_<status> and the library's text for a 4xx, INTERNAL_ERROR without its text for a 5xx.
// JSON bodies (the envelope, JSON-RPC errors) pass unchanged.
type envelopeWriter struct {
	http.ResponseWriter
	allowOrigin string
	wrote       bool
	status      int    // a plain-text error being rewritten; 0 otherwise
	text        []byte // its text (the first 512 bytes)
}

func (e *envelopeWriter) WriteHeader(code int) {
	if e.wrote {
		return
	}
	e.wrote = true
	h := e.Header()
	h.Del("Access-Control-Allow-Origin")
	h.Add("Vary", "Origin")
	if e.allowOrigin != "" {
		h.Set("Access-Control-Allow-Origin", e.allowOrigin)
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Retry-After")
	}
	if code >= 400 && !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		e.status = code
		return
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *envelopeWriter) Write(p []byte) (int, error) {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	if e.status != 0 {
		e.text = append(e.text, p[:min(len(p), 512-len(e.text))]...)
		return len(p), nil
	}
	return e.ResponseWriter.Write(p)
}

func (e *envelopeWriter) Flush() {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	if e.status == 0 {
		_ = http.NewResponseController(e.ResponseWriter).Flush()
	}
}

func (e *envelopeWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// finish writes the envelope of a rewritten plain-text error.
func (e *envelopeWriter) finish() {
	if e.status == 0 {
		return
	}
	status, text := e.status, strings.TrimSpace(string(e.text))
	e.status = 0
	h := e.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	code, msg := fmt.Sprintf("HTTP_%d", status), text
	switch {
	case status == http.StatusServiceUnavailable:
		code, msg = shariah.EUNAVAILABLE, "The MCP service is unavailable. Retry shortly."
		h.Set("Retry-After", "1")
	case status >= 500:
		slog.Warn("mcp: transport error", "status", status, "text", text)
		code, msg = shariah.EINTERNAL, "Internal error."
	case msg == "":
		msg = http.StatusText(status) + "."
	case !strings.HasSuffix(msg, "."):
		msg += "."
	}
	e.ResponseWriter.WriteHeader(status)
	_ = encodeError(e.ResponseWriter, code, msg, nil)
}

// clip cuts s to at most n bytes.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
