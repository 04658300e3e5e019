package analytics

import (
	"context"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// UsageReader answers usage history from ClickHouse. History is per user: a key and the keys it was
// regenerated from (or that replaced it) share one history, as they share one allowance. Each
// request_id counts once, however often the usage spool shipped it.
type UsageReader struct{ DB *DB }

var _ shariah.UsageReader = UsageReader{}

// DailyUsage returns one row per UTC day since the day of since, oldest first; days without requests
// are absent.
func (r UsageReader) DailyUsage(ctx context.Context, userID string, since time.Time) ([]shariah.DailyUsage, error) {
	// DISTINCT: a batch shipped again from the usage spool (a crash between its insert and the record
	// of its position) repeats identical rows; each request counts once.
	rows, err := r.DB.Conn.Query(ctx, `SELECT toString(toDate(ts)) AS d, toUInt64(count()) AS requests,
		toUInt64(sum(tokens)) AS tokens, toUInt64(sum(status >= 400)) AS errors
		FROM (SELECT DISTINCT request_id, ts, tokens, status FROM `+r.DB.table("usage_events")+`
		WHERE user_id = ? AND ts >= toDateTime(?))
		GROUP BY d ORDER BY d`, userID, since.UTC().Truncate(24*time.Hour).Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []shariah.DailyUsage{}
	for rows.Next() {
		var d shariah.DailyUsage
		var req, tok, errs uint64
		if err := rows.Scan(&d.Date, &req, &tok, &errs); err != nil {
			return nil, err
		}
		d.Requests, d.Tokens, d.Errors = int64(req), int64(tok), int64(errs)
		out = append(out, d)
	}
	return out, rows.Err()
}

// RecentRequests returns the user's latest requests, newest first.
func (r UsageReader) RecentRequests(ctx context.Context, userID string, limit int) ([]shariah.RecentRequest, error) {
	rows, err := r.DB.Conn.Query(ctx, `SELECT DISTINCT request_id, ts_ms, method, route, toUInt32(status), tokens, latency_us
		FROM `+r.DB.table("usage_events")+`
		WHERE user_id = ? ORDER BY ts_ms DESC, request_id DESC LIMIT ?`, userID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []shariah.RecentRequest{}
	for rows.Next() {
		var q shariah.RecentRequest
		var ms, lat uint64
		var status, tokens uint32
		if err := rows.Scan(&q.RequestID, &ms, &q.Method, &q.Route, &status, &tokens, &lat); err != nil {
			return nil, err
		}
		q.Time = time.UnixMilli(int64(ms)).UTC()
		q.Status, q.Tokens = int(status), int(tokens)
		q.LatencyMS = float64(lat) / 1000
		out = append(out, q)
	}
	return out, rows.Err()
}
