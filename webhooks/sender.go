package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// Delivery bounds (Sender's defaults).
const (
	DefaultTimeout = 10 * time.Second // a whole attempt: connect, send, the answer's headers and body
	MaxResponse    = 64 << 10         // bytes of an answer read (then the connection is dropped)
)

// Sender POSTs signed payloads to endpoints through the safe-target policy: its connections are dialled
// by Targets.DialContext (no proxy from the environment, which would dial for it), redirects are not
// followed (a 3xx is a failed attempt: a redirect could point anywhere), an answer is read up to
// MaxResponse and an attempt ends after Timeout whatever the receiver does.
type Sender struct {
	Targets *Targets
	Timeout time.Duration // 0: DefaultTimeout
	// UserAgent names the service to receivers.
	UserAgent string

	once   sync.Once
	client *http.Client
}

func (s *Sender) httpClient() *http.Client {
	s.once.Do(func() {
		timeout := s.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		tr := &http.Transport{
			Proxy:                  nil,
			DialContext:            s.Targets.DialContext,
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxIdleConns:           256,
			MaxIdleConnsPerHost:    64,
			IdleConnTimeout:        90 * time.Second,
			ForceAttemptHTTP2:      true,
			MaxResponseHeaderBytes: 16 << 10,
		}
		s.client = &http.Client{Transport: tr, Timeout: timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	})
	return s.client
}

// Result is one attempt: the receiver's status (0 when none came) and, unless it was a 2xx, why the
// attempt failed.
type Result struct {
	Status   int
	Err      string
	Duration time.Duration
}

// OK reports a 2xx answer: the event is delivered.
func (r Result) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Gone reports 410: the receiver asks for no more deliveries.
func (r Result) Gone() bool { return r.Status == http.StatusGone }

// Send POSTs body to url signed with secret, with the delivery headers.
func (s *Sender) Send(ctx context.Context, url, secret string, body []byte, eventID, deliveryID string, attempt int, now time.Time) Result {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Result{Err: "bad URL: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	ua := s.UserAgent
	if ua == "" {
		ua = "shariah-webhooks/1"
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set(SignatureHeader, shariah.SignTimestamped(secret, body, now))
	req.Header.Set(EventIDHeader, eventID)
	req.Header.Set(DeliveryIDHeader, deliveryID)
	req.Header.Set(AttemptHeader, strconv.Itoa(attempt))
	resp, err := s.httpClient().Do(req)
	if err != nil {
		return Result{Err: describe(err), Duration: time.Since(start)}
	}
	// Read a bounded part of the answer so the connection can be reused, then close it; a receiver
	// sending more (or slowly) is cut by the limit or the client's timeout.
	_, rerr := io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponse))
	resp.Body.Close()
	r := Result{Status: resp.StatusCode, Duration: time.Since(start)}
	switch {
	case r.OK() && rerr != nil && isTimeout(rerr):
		// the receiver took the event (2xx) and then dawdled over its body: delivered
	case r.OK():
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		r.Err = fmt.Sprintf("HTTP %d: redirect not followed (to %q)", resp.StatusCode, resp.Header.Get("Location"))
	default:
		r.Err = "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	return r
}

// describe is a transport failure as the deliveries list shows it: the policy's refusal as it is, a
// timeout as such, anything else in Go's words.
func describe(err error) string {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Error()
	}
	if isTimeout(err) {
		return "timed out"
	}
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
