package mcp

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// envelopeListener hands net/http connections whose answers to unreadable requests are the error
// envelope. net/http answers a request it cannot read before any handler runs (a malformed request 400,
// an unsupported protocol version 505, a header block over MaxHeaderBytes 431, an unknown transfer
// encoding 501), writing straight to the connection, in one write, a fixed form:
//
//	HTTP/1.1 <status line>\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n<text>
//
// A response a handler writes never starts that way: net/http writes a response's headers sorted, so
// Connection comes before Content-Type. (Slow headers are cut by ReadHeaderTimeout with no answer at
// all: nothing to rewrite.)
type envelopeListener struct{ net.Listener }

func (l envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Conn: c}, nil
}

// envelopeConn rewrites net/http's own plain-text error answer (see envelopeListener).
type envelopeConn struct{ net.Conn }

var (
	rawErrorStart   = []byte("HTTP/1.1 ")
	rawErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")
)

func (c *envelopeConn) Write(p []byte) (int, error) {
	if out, ok := envelopeOfRawError(p); ok {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// envelopeOfRawError returns the envelope form of one of net/http's own error answers, or false when p
// is not one: same status, Content-Type application/json, HTTP_<status> and net/http's text (which
// names no input: it never echoes the request).
func envelopeOfRawError(p []byte) ([]byte, bool) {
	if !bytes.HasPrefix(p, rawErrorStart) {
		return nil, false
	}
	i := bytes.Index(p, rawErrorHeaders)
	if i < 0 || bytes.Contains(p[:i], []byte("\r\n")) {
		return nil, false
	}
	statusLine := string(p[len(rawErrorStart):i]) // "431 Request Header Fields Too Large", "505 HTTP Version Not Supported: ..."
	status, err := strconv.Atoi(statusLine[:min(3, len(statusLine))])
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	msg := strings.TrimSpace(string(p[i+len(rawErrorHeaders):]))
	if _, text, ok := strings.Cut(msg, " "); ok && strings.HasPrefix(msg, strconv.Itoa(status)) {
		msg = text // the text repeats the status code
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	var body bytes.Buffer
	_ = encodeError(&body, fmt.Sprintf("HTTP_%d", status), msg, nil)
	var out bytes.Buffer
	fmt.Fprintf(&out, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		status, http.StatusText(status), body.Len())
	out.Write(body.Bytes())
	return out.Bytes(), true
}
