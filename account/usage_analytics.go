package account

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shariah-screen/shariah"
)

// UsageRetention is how far back the usage history answers: a range beginning before now minus this is
// refused (422). 400 days, so that the longest range (366 days) ending today always fits, with a month
// to spare for the billing month an overage event looks back to. ClickHouse 18.16 has no TTL: the
// partitions (one per month) older than this are dropped by the operator, not by the service.
const UsageRetention = 400 * 24 * time.Hour

// MaxUsageRange is the longest range a usage analytics query covers.
const MaxUsageRange = 366 * 24 * time.Hour

// DefaultUsageRange is the range of a query that names neither end: the last 7 days up to now.
const DefaultUsageRange = 7 * 24 * time.Hour

// UsageRange is a half-open range of time [From, To), UTC. The aggregates are hourly: From is rounded
// down and To up to the hour, so an hour counts when it begins inside the range.
type UsageRange struct {
	From time.Time
	To   time.Time
}

// UsageQuery is one question to the usage analytics: a range, the size of its buckets, how the series
// are split, and optional filters (a route template, a plan id).
type UsageQuery struct {
	Range       UsageRange
	Granularity string // hour, day
	GroupBy     string // none, route, plan, key
	Route       string // route template ("/api/quote/{symbol}"), every method of it; "" all
	Plan        string // plan id; "" all
}

// Usage analytics granularities and groupings.
var (
	UsageGranularities = []string{"hour", "day"}
	UsageGroupings     = []string{"none", "route", "plan", "key"}
)

// UsageStats are the counts and latency percentiles of a set of requests. Percentiles are in
// milliseconds, at the accuracy of the aggregates' quantile state (see analytics/migrations/003).
type UsageStats struct {
	Requests  int64   `json:"requests"`
	Tokens    int64   `json:"tokens"`
	Errors4xx int64   `json:"errors_4xx"`
	Errors5xx int64   `json:"errors_5xx"`
	P50MS     float64 `json:"p50_ms"`
	P95MS     float64 `json:"p95_ms"`
	P99MS     float64 `json:"p99_ms"`
}

// SetPercentiles sets the three percentiles from a state's answer, [p50, p95, p99]; a state of no
// requests answers NaN, shown as 0.
func (s *UsageStats) SetPercentiles(q []float64) {
	for i, p := range []*float64{&s.P50MS, &s.P95MS, &s.P99MS} {
		if i < len(q) && !math.IsNaN(q[i]) && !math.IsInf(q[i], 0) {
			*p = q[i]
		}
	}
}

// UsagePoint is one bucket (hour or day) of a series; buckets without requests are absent.
type UsagePoint struct {
	Time time.Time `json:"time"`
	UsageStats
}

// UsageSeries is the points of one group: a route template, a plan id, a key prefix, or "all".
type UsageSeries struct {
	Group  string       `json:"group"`
	Points []UsagePoint `json:"points"`
}

// UsageReport answers GET /api/analytics/usage: the series, most requests first, and the totals.
type UsageReport struct {
	From        time.Time     `json:"from"`
	To          time.Time     `json:"to"`
	Granularity string        `json:"granularity"`
	GroupBy     string        `json:"group_by"`
	Series      []UsageSeries `json:"series"`
	Totals      UsageStats    `json:"totals"`
}

// RouteUsage is one route's usage over a range.
type RouteUsage struct {
	Method string `json:"method"`
	Route  string `json:"route"`
	UsageStats
	ErrorRate float64 `json:"error_rate"` // (4xx + 5xx) / requests, 4 decimals
}

// ErrorRateOf is the share of failed requests, rounded to 4 decimals (0 without requests).
func ErrorRateOf(requests, errors int64) float64 {
	if requests <= 0 {
		return 0
	}
	return math.Round(float64(errors)/float64(requests)*1e4) / 1e4
}

// KeyUsage is one key's usage over a range (top keys). Never the full key: its public prefix.
type KeyUsage struct {
	KeyPrefix     string `json:"key_prefix"`
	UserID        string `json:"user_id"`
	Plan          string `json:"plan"` // the key's latest plan in the range
	Requests      int64  `json:"requests"`
	Tokens        int64  `json:"tokens"`
	OverageTokens int64  `json:"overage_tokens"`
	Errors        int64  `json:"errors"` // 4xx and 5xx
}

// Quota event kinds.
const (
	QuotaExhausted = "quota_exhausted" // refused with QUOTA_EXCEEDED (a hard-block plan past its allowance)
	OverageStarted = "overage_started" // the first request of a key's billing month charged beyond the allowance
)

// QuotaEvent is one key's quota event on one UTC day: the first time it happened that day and how many
// requests of that kind the key made that day.
type QuotaEvent struct {
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	KeyPrefix string    `json:"key_prefix"`
	UserID    string    `json:"user_id"`
	Plan      string    `json:"plan"`
	Requests  int64     `json:"requests"`
}

// ParseUsageTime reads a range end: a date (YYYY-MM-DD, 00:00 UTC) or an RFC 3339 time.
func ParseUsageTime(s string) (time.Time, bool) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), true
	}
	return time.Time{}, false
}

// ParseUsageRange reads the from and to query parameters (either may be empty: the default range is
// the last 7 days up to now, and a range naming one end is 7 days long) and checks them: from before to,
// at most MaxUsageRange, not before the retention. Problems are added to v under query.from / query.to.
func ParseUsageRange(v *shariah.Validation, from, to string, now time.Time) UsageRange {
	now = now.UTC()
	bad := false
	end := func(name, raw string) (time.Time, bool) {
		if raw == "" {
			return time.Time{}, false
		}
		t, ok := ParseUsageTime(raw)
		if !ok {
			v.Add("value must be a date (YYYY-MM-DD) or an RFC 3339 time", "value_error.datetime", "query", name)
			bad = true
		}
		return t, ok
	}
	f, hasF := end("from", from)
	t, hasT := end("to", to)
	switch {
	case hasF && !hasT:
		t = f.Add(DefaultUsageRange)
		if t.After(now) {
			t = now
		}
	case hasT && !hasF:
		f = t.Add(-DefaultUsageRange)
	case !hasF && !hasT:
		t = now
		f = now.Add(-DefaultUsageRange)
	}
	r := UsageRange{From: f.Truncate(time.Hour), To: ceilHour(t)}
	if bad {
		return r
	}
	switch {
	case !f.Before(t):
		v.Add("from must be before to", "value_error.range", "query", "from")
	case t.Sub(f) > MaxUsageRange:
		v.Add("the range must not exceed "+strconv.Itoa(int(MaxUsageRange/(24*time.Hour)))+" days", "value_error.range", "query", "to")
	}
	if f.Before(now.Add(-UsageRetention)) {
		v.Add("from is before the usage retention ("+strconv.Itoa(int(UsageRetention/(24*time.Hour)))+" days)", "value_error.retention", "query", "from")
	}
	return r
}

func ceilHour(t time.Time) time.Time {
	tr := t.Truncate(time.Hour)
	if tr.Equal(t) {
		return t
	}
	return tr.Add(time.Hour)
}

// ParseUsageQuery reads a usage analytics query from its parameters (get returns one, "" when absent):
// from, to, granularity (hour, day; default day), group_by (none, route, plan, key; default none),
// route (one of routes, the route templates served) and plan (one of plans). Problems go to v.
func ParseUsageQuery(v *shariah.Validation, get func(string) string, now time.Time, routes []string, plans Plans) UsageQuery {
	q := UsageQuery{Range: ParseUsageRange(v, get("from"), get("to"), now),
		Granularity: oneOf(v, get, "granularity", "day", UsageGranularities),
		GroupBy:     oneOf(v, get, "group_by", "none", UsageGroupings)}
	if r := get("route"); r != "" {
		if !slices.Contains(routes, r) {
			v.Add("unknown route: a route template of the API, e.g. /api/quote/{symbol}", "value_error.route", "query", "route")
		}
		q.Route = r
	}
	q.Plan = ParseUsagePlan(v, get("plan"), plans)
	return q
}

// ParseUsagePlan checks a plan filter ("" for none) against the plans in force.
func ParseUsagePlan(v *shariah.Validation, plan string, plans Plans) string {
	if plan == "" {
		return ""
	}
	if _, ok := plans.Lookup(plan); !ok {
		ids := make([]string, len(plans))
		for i, p := range plans {
			ids[i] = p.ID
		}
		v.Add("unknown plan: one of "+strings.Join(ids, ", "), "value_error.plan", "query", "plan")
	}
	return plan
}

func oneOf(v *shariah.Validation, get func(string) string, name, def string, allowed []string) string {
	s := get(name)
	if s == "" {
		return def
	}
	if !slices.Contains(allowed, s) {
		v.Add("value must be one of "+strings.Join(allowed, ", "), "value_error.enum", "query", name)
		return def
	}
	return s
}
