package analytics

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/shariah-screen/shariah/account"
)

// The usage analytics read only the aggregates of migrations/003_usage_analytics.sql (merging their
// states), never usage_events: a range over 100 million requests reads a few million aggregate rows.
// Which table answers depends on the dimensions a question needs:
//
//	usage_route_hourly  hour x route x method x plan     fleet series (none, route, plan), routes
//	usage_route_daily   the same per day
//	usage_key_hourly    hour x key x plan                series by key, top keys
//	usage_key_daily     the same per day
//	usage_hourly        user x hour x key x route x ...  one user's routes, series by key of one route
//	usage_quota_daily   day x kind x key                 quota events
//
// A range's whole UTC days are read from the daily rollup, its hours before the first and after the
// last whole day from the hourly table (the two read as one, UNION ALL, and merged together).
//
// The counts of an aggregate are exact: the usage spool never inserts a batch twice (UsageWriter's
// alreadyShipped; rows an older binary shipped twice after a crash count twice). The percentiles have
// the accuracy of quantilesTiming.

// statesSQL are the merged states of a usage aggregate, in the order scanStats reads them.
const statesSQL = `toUInt64(countMerge(requests)), toUInt64(sumMerge(tokens)), toUInt64(sumMerge(overage)),
	toUInt64(sumMerge(errors_4xx)), toUInt64(sumMerge(errors_5xx)),
	arrayMap(x -> toFloat64(x), quantilesTimingMerge(0.5, 0.95, 0.99)(latency))`

// mergedStats receives statesSQL.
type mergedStats struct {
	requests, tokens, overage, e4, e5 uint64
	q                                 []float64
}

func (m *mergedStats) dest() []any {
	return []any{&m.requests, &m.tokens, &m.overage, &m.e4, &m.e5, &m.q}
}

func (m *mergedStats) stats() account.UsageStats {
	s := account.UsageStats{Requests: int64(m.requests), Tokens: int64(m.tokens), Errors4xx: int64(m.e4), Errors5xx: int64(m.e5)}
	s.SetPercentiles(m.q)
	return s
}

// stateColumns are the state columns every usage aggregate has.
const stateColumns = "requests, tokens, overage, errors_4xx, errors_5xx, latency"

// source is the FROM of a query over an aggregate and its rollup: the rows of the range, with the
// dimensions dims, the time as hour and the state columns, and the arguments it binds. daily is "" for
// a table without a rollup (or an hourly question); where (with its args) filters both.
func source(r account.UsageRange, hourly, daily, dims, where string, args []any) (string, []any) {
	part := func(table, t, cond string, cargs []any) (string, []any) {
		q := "SELECT " + dims + ", " + t + " AS hour, " + stateColumns + " FROM " + table + " WHERE " + cond
		if where != "" {
			q += " AND " + where
		}
		return q, append(cargs, args...)
	}
	day := 24 * time.Hour
	d0 := r.From.Add(day - time.Nanosecond).Truncate(day) // the first whole day
	d1 := r.To.Truncate(day)                              // the end of the last whole day
	if daily == "" || !d0.Before(d1) {
		q, a := part(hourly, "hour", "hour >= toDateTime(?) AND hour < toDateTime(?)", []any{r.From.Unix(), r.To.Unix()})
		return "(" + q + ")", a
	}
	var qs []string
	var out []any
	add := func(q string, a []any) { qs, out = append(qs, q), append(out, a...) }
	add(part(daily, "day", "day >= toDateTime(?) AND day < toDateTime(?)", []any{d0.Unix(), d1.Unix()}))
	if r.From.Before(d0) {
		add(part(hourly, "hour", "hour >= toDateTime(?) AND hour < toDateTime(?)", []any{r.From.Unix(), d0.Unix()}))
	}
	if d1.Before(r.To) {
		add(part(hourly, "hour", "hour >= toDateTime(?) AND hour < toDateTime(?)", []any{d1.Unix(), r.To.Unix()}))
	}
	return "(" + strings.Join(qs, " UNION ALL ") + ")", out
}

// UsageSeries answers a usage analytics query: one series per group, most requests first, and the
// totals of the range.
func (r UsageReader) UsageSeries(ctx context.Context, q account.UsageQuery) (account.UsageReport, error) {
	rep := account.UsageReport{From: q.Range.From, To: q.Range.To, Granularity: q.Granularity, GroupBy: q.GroupBy, Series: []account.UsageSeries{}}
	hourly, daily := "usage_route_hourly", "usage_route_daily"
	group, dims := "'all'", "route, plan"
	switch q.GroupBy {
	case "route":
		group = "route"
	case "plan":
		group = "plan"
	case "key":
		group, dims = "key_prefix", "key_prefix, plan"
		hourly, daily = "usage_key_hourly", "usage_key_daily"
		if q.Route != "" {
			// the only table with both the key and the route
			hourly, daily, dims = "usage_hourly", "", "key_prefix, route, plan"
		}
	}
	var conds []string
	var args []any
	if q.Route != "" {
		conds, args = append(conds, "route = ?"), append(args, q.Route)
	}
	if q.Plan != "" {
		conds, args = append(conds, "plan = ?"), append(args, q.Plan)
	}
	bucket := "hour"
	if q.Granularity == "day" {
		bucket = "toStartOfDay(hour)"
	} else {
		daily = ""
	}
	if daily != "" {
		daily = r.DB.table(daily)
	}
	from, args := source(q.Range, r.DB.table(hourly), daily, dims, strings.Join(conds, " AND "), args)
	// WITH TOTALS: the range's totals (its states merged over every group and bucket) in the same pass.
	rows, err := r.DB.Conn.Query(ctx, "SELECT "+group+" AS g, toUInt32("+bucket+") AS b, "+statesSQL+
		" FROM "+from+" GROUP BY g, b WITH TOTALS ORDER BY g, b", args...)
	if err != nil {
		return rep, err
	}
	defer rows.Close()
	byGroup := map[string]int{}
	total := map[string]int64{}
	for rows.Next() {
		var g string
		var b uint32
		var m mergedStats
		if err := rows.Scan(append([]any{&g, &b}, m.dest()...)...); err != nil {
			return rep, err
		}
		i, ok := byGroup[g]
		if !ok {
			i = len(rep.Series)
			byGroup[g] = i
			rep.Series = append(rep.Series, account.UsageSeries{Group: g, Points: []account.UsagePoint{}})
		}
		rep.Series[i].Points = append(rep.Series[i].Points, account.UsagePoint{Time: time.Unix(int64(b), 0).UTC(), UsageStats: m.stats()})
		total[g] += int64(m.requests)
	}
	if err := rows.Err(); err != nil {
		return rep, err
	}
	var g string
	var b uint32
	var m mergedStats
	if len(rep.Series) > 0 { // no rows, no totals row
		if err := rows.Totals(append([]any{&g, &b}, m.dest()...)...); err != nil {
			return rep, err
		}
	}
	rep.Totals = m.stats()
	sort.SliceStable(rep.Series, func(a, b int) bool {
		ga, gb := rep.Series[a].Group, rep.Series[b].Group
		if total[ga] != total[gb] {
			return total[ga] > total[gb]
		}
		return ga < gb
	})
	return rep, nil
}

// RouteUsage answers the usage per route and method over a range, most requests first: the fleet's
// (userID "") or one user's, of one plan or all (plan "").
func (r UsageReader) RouteUsage(ctx context.Context, rg account.UsageRange, plan, userID string) ([]account.RouteUsage, error) {
	hourly, daily := r.DB.table("usage_route_hourly"), r.DB.table("usage_route_daily")
	var conds []string
	var args []any
	if userID != "" {
		// one user's rows are contiguous in the full-grain table: no rollup needed
		hourly, daily = r.DB.table("usage_hourly"), ""
		conds, args = append(conds, "user_id = ?"), append(args, userID)
	}
	if plan != "" {
		conds, args = append(conds, "plan = ?"), append(args, plan)
	}
	from, args := source(rg, hourly, daily, "method, route, plan", strings.Join(conds, " AND "), args)
	rows, err := r.DB.Conn.Query(ctx, "SELECT method, route, "+statesSQL+" FROM "+from+
		" GROUP BY method, route ORDER BY toUInt64(countMerge(requests)) DESC, route, method", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []account.RouteUsage{}
	for rows.Next() {
		var u account.RouteUsage
		var m mergedStats
		if err := rows.Scan(append([]any{&u.Method, &u.Route}, m.dest()...)...); err != nil {
			return nil, err
		}
		u.UsageStats = m.stats()
		u.ErrorRate = account.ErrorRateOf(u.Requests, u.Errors4xx+u.Errors5xx)
		out = append(out, u)
	}
	return out, rows.Err()
}

// TopKeys answers the keys that used the most tokens over a range (then the most requests), with the
// key's latest plan in the range.
func (r UsageReader) TopKeys(ctx context.Context, rg account.UsageRange, limit int) ([]account.KeyUsage, error) {
	from, args := source(rg, r.DB.table("usage_key_hourly"), r.DB.table("usage_key_daily"), "key_id, user_id, key_prefix, plan", "", nil)
	rows, err := r.DB.Conn.Query(ctx, `SELECT key_prefix, user_id, argMax(plan, hour) AS p,
		toUInt64(countMerge(requests)) AS n, toUInt64(sumMerge(tokens)) AS tok, toUInt64(sumMerge(overage)),
		toUInt64(sumMerge(errors_4xx) + sumMerge(errors_5xx))
		FROM `+from+`
		GROUP BY key_id, key_prefix, user_id ORDER BY tok DESC, n DESC, key_prefix LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []account.KeyUsage{}
	for rows.Next() {
		var k account.KeyUsage
		var n, tok, over, errs uint64
		if err := rows.Scan(&k.KeyPrefix, &k.UserID, &k.Plan, &n, &tok, &over, &errs); err != nil {
			return nil, err
		}
		k.Requests, k.Tokens, k.OverageTokens, k.Errors = int64(n), int64(tok), int64(over), int64(errs)
		out = append(out, k)
	}
	return out, rows.Err()
}

// QuotaEvents answers the quota events of a range, newest first: per key and UTC day, the first
// refusal with QUOTA_EXCEEDED (quota_exhausted), and per key and billing month the first day with
// overage (overage_started), each with its time and the day's count of such requests. An event counts
// when its time is in the range; overage_started looks back to the start of the range's first month.
func (r UsageReader) QuotaEvents(ctx context.Context, rg account.UsageRange, limit int) ([]account.QuotaEvent, error) {
	// per key and day: the day's first time and count (a key that changed plan that day: the plan of its first)
	days := `SELECT day, key_id, argMin(key_prefix, f) AS prefix, argMin(user_id, f) AS uid, argMin(plan, f) AS p,
			min(f) AS first, sum(n) AS requests
		FROM (SELECT day, key_id, key_prefix, user_id, plan, minMerge(first) AS f, toUInt64(countMerge(requests)) AS n
			FROM ` + r.DB.table("usage_quota_daily") + ` WHERE kind = ? AND day >= toDate(?) AND day <= toDate(?)
			GROUP BY day, key_id, key_prefix, user_id, plan)
		GROUP BY day, key_id`
	from, to := rg.From.Unix(), rg.To.Add(-time.Second).Unix()
	monthStart := time.Date(rg.From.Year(), rg.From.Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
	queries := []struct {
		kind, sql string
		args      []any
	}{
		{account.QuotaExhausted, `SELECT toUInt32(first), prefix, uid, p, requests FROM (` + days + `)
			WHERE first >= toDateTime(?) AND first < toDateTime(?)
			ORDER BY first DESC, prefix LIMIT ?`, []any{"quota_exhausted", from, to, from, rg.To.Unix(), limit}},
		{account.OverageStarted, `SELECT toUInt32(min(first)) AS t, argMin(prefix, first), argMin(uid, first), argMin(p, first),
				argMin(requests, first)
			FROM (` + days + `) GROUP BY key_id, toStartOfMonth(day)
			HAVING t >= ? AND t < ?
			ORDER BY t DESC LIMIT ?`, []any{"overage", monthStart, to, from, rg.To.Unix(), limit}},
	}
	out := []account.QuotaEvent{}
	for _, q := range queries {
		rows, err := r.DB.Conn.Query(ctx, q.sql, q.args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			e := account.QuotaEvent{Kind: q.kind}
			var t uint32
			var n uint64
			if err := rows.Scan(&t, &e.KeyPrefix, &e.UserID, &e.Plan, &n); err != nil {
				rows.Close()
				return nil, err
			}
			e.Time, e.Requests = time.Unix(int64(t), 0).UTC(), int64(n)
			out = append(out, e)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if !out[a].Time.Equal(out[b].Time) {
			return out[a].Time.After(out[b].Time)
		}
		if out[a].Kind != out[b].Kind {
			return out[a].Kind < out[b].Kind
		}
		return strings.Compare(out[a].KeyPrefix, out[b].KeyPrefix) < 0
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
