package shariah

import (
	"context"
	"time"
)

// UsageEvent is one metered request, as written to the usage history.
type UsageEvent struct {
	RequestID string
	KeyID     string
	UserID    string
	KeyPrefix string
	Method    string
	Route     string // route template, never the raw path (a deprecated route carries a key in its path)
	Status    int
	Tokens    int // tokens kept after refunds
	Overage   int // of those, tokens beyond the allowance
	Latency   time.Duration
	Time      time.Time
	Plan      string // the key's plan when it was charged (the usage analytics group by it)
	// ErrorCode is the error envelope's code of a refused or failed request ("" for a success):
	// QUOTA_EXCEEDED tells a quota refusal from a RATE_LIMITED 429 (quota events).
	ErrorCode string
}

// DailyUsage is one day of a key's usage.
type DailyUsage struct {
	Date     string `json:"date"` // YYYY-MM-DD, UTC
	Requests int64  `json:"requests"`
	Tokens   int64  `json:"tokens"`
	Errors   int64  `json:"errors"` // responses with status >= 400
}

// RecentRequest is one of a key's latest requests.
type RecentRequest struct {
	RequestID string    `json:"request_id"`
	Time      time.Time `json:"timestamp"`
	Method    string    `json:"method"`
	Route     string    `json:"route"`
	Status    int       `json:"status"`
	Tokens    int       `json:"tokens"`
	LatencyMS float64   `json:"latency_ms"`
}

// UsageRecorder accepts usage events without blocking the request that produced them.
type UsageRecorder interface {
	Record(UsageEvent)
}

// UsageReader answers the usage history of a user (a key and the keys regenerated from it).
type UsageReader interface {
	DailyUsage(ctx context.Context, userID string, since time.Time) ([]DailyUsage, error)
	RecentRequests(ctx context.Context, userID string, limit int) ([]RecentRequest, error)
	// The usage analytics (usage_analytics.go), answered from aggregates kept as requests arrive.
	// UsageSeries answers a query; RouteUsage the usage per route (one user's, or all with userID "";
	// a plan "" for all plans), most requests first; TopKeys the keys with the most tokens; QuotaEvents
	// the quota events, newest first.
	UsageSeries(ctx context.Context, q UsageQuery) (UsageReport, error)
	RouteUsage(ctx context.Context, r UsageRange, plan, userID string) ([]RouteUsage, error)
	TopKeys(ctx context.Context, r UsageRange, limit int) ([]KeyUsage, error)
	QuotaEvents(ctx context.Context, r UsageRange, limit int) ([]QuotaEvent, error)
}

// UsageSpoolStats is the state of an edge's usage spool (the journal of usage events on its way to
// ClickHouse), shown in health.
type UsageSpoolStats struct {
	Status       string `json:"status"` // ok; spooling (ClickHouse unavailable, events held); full (events dropped)
	PendingBytes int64  `json:"pending_bytes"`
	MaxBytes     int64  `json:"max_bytes"`
	Written      int64  `json:"written"`  // events written to ClickHouse by this process
	Dropped      int64  `json:"dropped"`  // events lost because the spool was full
	Corrupt      int64  `json:"corrupt"`  // spool lines that did not decode (skipped)
	Replayed     int64  `json:"replayed"` // events found in ClickHouse already when shipping after a crash (not inserted again)
	Error        string `json:"error,omitempty"`
}
