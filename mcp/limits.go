package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/shariah-screen/shariah/config"
)

// limitRequests applies the API's limits to the MCP port. A body above BodyLimit is 413 before it is
// read when its length is declared, and as soon as the limit is passed when it is chunked; the body is
// read here in full (at most BodyLimit bytes), so a body that does not arrive within ReadTimeout is cut
// (408, connection closed). A stream (GET /sse, GET /mcp) has no body and lives as long as its client
// reads it: its read deadline is lifted and each write must complete within WriteTimeout.
func limitRequests(l config.HTTPLimits, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > int64(l.BodyLimit) {
			tooLarge(w, l.BodyLimit)
			return
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Time{})
			next.ServeHTTP(&streamWriter{ResponseWriter: w, rc: rc, timeout: l.WriteTimeout}, r)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(io.LimitReader(r.Body, int64(l.BodyLimit)+1))
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					w.Header().Set("Connection", "close")
					writeError(w, http.StatusRequestTimeout, "HTTP_408", "The request body did not arrive in time.", nil)
				}
				return
			}
			if len(body) > l.BodyLimit {
				tooLarge(w, l.BodyLimit)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

func tooLarge(w http.ResponseWriter, limit int) {
	w.Header().Set("Connection", "close") // the rest of the body is not read
	writeError(w, http.StatusRequestEntityTooLarge, "HTTP_413", fmt.Sprintf("The request body is larger than %d bytes.", limit), nil)
}

// writeError writes the REST error envelope (detail: nil or an object).
func writeError(w http.ResponseWriter, status int, code, msg string, detail any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = encodeError(w, code, msg, detail)
}

// encodeError writes the envelope's body.
func encodeError(w io.Writer, code, msg string, detail any) error {
	return json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg, "detail": detail})
}

// streamWriter gives each write of a stream its own deadline.
type streamWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (s *streamWriter) Write(p []byte) (int, error) {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	return s.ResponseWriter.Write(p)
}

func (s *streamWriter) Flush() {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	_ = s.rc.Flush()
}

func (s *streamWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
