package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/config"
)

// keyless bounds the HTTP callers without a key (config.KeylessLimits), by client address
// (account.ClientAddress, then account.AddressBucket): a token bucket of requests per address, and
// counts of open streams (GET /sse, GET /mcp) per address and in all. Over a bound a request is 429
// RATE_LIMITED in the error envelope with Retry-After; a call refused inside an open SSE session is
// also answered on its stream with a JSON-RPC error saying so. Callers with a key pass (their plan's
// rate applies to their tool calls). The counts are this process's: each MCP process bounds its own.
type keyless struct {
	limits  config.KeylessLimits
	proxies []netip.Prefix
	sse     *server.SSEServer

	mu      sync.Mutex
	buckets map[string]*bucket
	streams map[string]int // open streams per address
	open    int            // open streams in all
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// rateLimitedCode is the JSON-RPC error code of a call refused for the keyless rate (a server error).
const rateLimitedCode = -32029

// streamRetryAfter is the Retry-After of a refused stream: a stream ends when its client leaves, at
// no time known in advance.
const streamRetryAfter = 5

func newKeyless(l config.KeylessLimits, proxies []netip.Prefix, sse *server.SSEServer) *keyless {
	return &keyless{limits: l.OrDefault(), proxies: proxies, sse: sse, buckets: map[string]*bucket{}, streams: map[string]int{}}
}

func (k *keyless) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, keyed := r.Context().Value(keyCtx{}).(keyInfo); keyed {
			next.ServeHTTP(w, r)
			return
		}
		addr := k.address(r)
		if wait, ok := k.take(addr, time.Now()); !ok {
			secs := max(int64(math.Ceil(wait.Seconds())), 1)
			msg := fmt.Sprintf("Too many requests without an API key from this address: at most %g per second (bursts of %d). "+
				"Retry after the time in Retry-After, or send an API key in the X-API-Key header.", k.limits.Rate, k.limits.Burst)
			detail := map[string]any{"scope": "address", "requests_per_second": k.limits.Rate, "burst": k.limits.Burst, "retry_after_seconds": secs}
			k.refuse(w, r, secs, msg, detail)
			return
		}
		if r.Method == http.MethodGet {
			scope, limit := k.openStream(addr)
			if scope != "" {
				msg := fmt.Sprintf("Too many open streams without an API key (%s): at most %d. Close one, retry later, or send an API key in the X-API-Key header.",
					map[string]string{"address": "from this address", "all": "in all"}[scope], limit)
				k.refuse(w, r, streamRetryAfter, msg, map[string]any{"scope": scope, "open_streams_limit": limit, "retry_after_seconds": streamRetryAfter})
				return
			}
			defer k.closeStream(addr)
		}
		next.ServeHTTP(w, r)
	})
}

// address is the request's client address bucket.
func (k *keyless) address(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return account.AddressBucket(account.ClientAddress(ap.Addr(), r.Header.Get("X-Forwarded-For"), k.proxies))
}

// take spends one request of addr's bucket; when it is empty it returns the time until it holds one.
func (k *keyless) take(addr string, now time.Time) (time.Duration, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweep(now)
	b := k.buckets[addr]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(k.limits.Rate), k.limits.Burst)}
		k.buckets[addr] = b
	}
	b.seen = now
	if b.lim.AllowN(now, 1) {
		return 0, true
	}
	return time.Duration((1 - b.lim.TokensAt(now)) / k.limits.Rate * float64(time.Second)), false
}

// sweep forgets, once a minute, the buckets idle long enough to be full again (the same as new).
func (k *keyless) sweep(now time.Time) {
	if now.Sub(k.swept) < time.Minute {
		return
	}
	k.swept = now
	refill := time.Duration(float64(k.limits.Burst) / k.limits.Rate * float64(time.Second))
	for a, b := range k.buckets {
		if now.Sub(b.seen) > refill {
			delete(k.buckets, a)
		}
	}
}

// openStream counts a stream of addr, or returns the scope ("address" or "all") and limit it is over.
func (k *keyless) openStream(addr string) (string, int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.streams[addr] >= k.limits.StreamsPerAddress {
		return "address", k.limits.StreamsPerAddress
	}
	if k.open >= k.limits.Streams {
		return "all", k.limits.Streams
	}
	k.streams[addr]++
	k.open++
	return "", 0
}

func (k *keyless) closeStream(addr string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.open--
	if k.streams[addr]--; k.streams[addr] <= 0 {
		delete(k.streams, addr)
	}
}

// refuse answers 429 RATE_LIMITED in the error envelope. When the request is a JSON-RPC call (it has an
// id) the same object also carries the call's JSON-RPC error (jsonrpc, id, error): MCP clients read
// an error status's body as the call's answer. A call posted to an open SSE session (POST /message) is
// also answered on the session's stream, where its client waits for it.
func (k *keyless) refuse(w http.ResponseWriter, r *http.Request, retryAfter int64, msg string, detail map[string]any) {
	w.Header().Set("Retry-After", strconv.FormatInt(retryAfter, 10))
	id := callID(r)
	if id == nil {
		writeError(w, http.StatusTooManyRequests, shariah.ERATELIMITED, msg, detail)
		return
	}
	rpc := mcpgo.JSONRPCErrorDetails{Code: rateLimitedCode, Message: shariah.ERATELIMITED + ": " + msg, Data: detail}
	if sid := r.URL.Query().Get("sessionId"); sid != "" && r.URL.Path == "/message" && k.sse != nil {
		_ = k.sse.SendEventToSession(sid, mcpgo.JSONRPCError{JSONRPC: mcpgo.JSONRPC_VERSION, ID: mcpgo.NewRequestId(id), Error: rpc})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": shariah.ERATELIMITED, "message": msg, "detail": detail,
		"jsonrpc": mcpgo.JSONRPC_VERSION, "id": id, "error": rpc})
}

// callID is the id of the JSON-RPC request in a POST body (nil for none: a notification, a batch, a
// GET). The body was read in full, within the body limit, by limitRequests.
func callID(r *http.Request) any {
	if r.Method != http.MethodPost || r.Body == nil {
		return nil
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID any `json:"id"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&msg) != nil {
		return nil
	}
	return msg.ID
}
