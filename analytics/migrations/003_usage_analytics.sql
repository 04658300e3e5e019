-- Usage analytics (issue 18). usage_events gains the key's plan and the error code of a refusal
-- (QUOTA_EXCEEDED tells a quota refusal from a RATE_LIMITED 429); rows written before this migration
-- have '' in both. ADD COLUMN has no IF NOT EXISTS on 18.16: Migrate skips an ADD COLUMN whose column
-- exists (analytics.go), so the migration stays safe to run again.
ALTER TABLE {db}.usage_events ADD COLUMN plan String DEFAULT '';
ALTER TABLE {db}.usage_events ADD COLUMN error_code String DEFAULT '';

-- The aggregates, maintained by materialized views as rows arrive (a view sees the rows inserted after
-- it exists: requests recorded before this migration are not in them). The analytics routes read only
-- these tables, merging their states, never usage_events. Every table has the same states:
--   requests, tokens, overage, errors_4xx, errors_5xx: sums (countState / sumState);
--   latency: quantilesTimingState(0.5, 0.95, 0.99) over the latency in whole milliseconds, rounded up.
--     Its documented accuracy: exact while a merged state holds at most 5670 values or the latencies
--     are under 1024 ms; otherwise rounded to a multiple of 16 ms (the server answers from a 16 ms
--     bucket, moved by a fixed jitter of up to 8 ms: within 24 ms, as the tests hold); values over
--     30000 ms count as 30000. Chosen over quantileTDigest (no documented bound, order-dependent) and quantile
--     (reservoir of 8192: a 64 KiB state per row). Rounding up to whole ms adds less than 1 ms.
-- Duplicates: none since the usage spool ships exactly once (analytics/writer.go, alreadyShipped). A
-- binary older than that could ship a batch twice after a crash, and such a batch counts twice here.

-- Fleet-wide, per hour x route x method x plan: /api/analytics/usage (group_by none, route, plan) and
-- /api/analytics/routes.
CREATE TABLE IF NOT EXISTS {db}.usage_route_hourly (
    hour DateTime,
    route String,
    method String,
    plan String,
    requests AggregateFunction(count),
    tokens AggregateFunction(sum, UInt32),
    overage AggregateFunction(sum, UInt32),
    errors_4xx AggregateFunction(sum, UInt8),
    errors_5xx AggregateFunction(sum, UInt8),
    latency AggregateFunction(quantilesTiming(0.5, 0.95, 0.99), UInt32)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, route, method, plan);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_route_hourly_mv TO {db}.usage_route_hourly AS
SELECT toStartOfHour(ts) AS hour, route, method, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM {db}.usage_events
GROUP BY hour, route, method, plan;

-- Per hour x key (no route): /api/analytics/top-keys and /api/analytics/usage?group_by=key. key_prefix
-- and user_id follow from key_id; the plan is in the key because a key can change plan.
CREATE TABLE IF NOT EXISTS {db}.usage_key_hourly (
    hour DateTime,
    key_id String,
    user_id String,
    key_prefix String,
    plan String,
    requests AggregateFunction(count),
    tokens AggregateFunction(sum, UInt32),
    overage AggregateFunction(sum, UInt32),
    errors_4xx AggregateFunction(sum, UInt8),
    errors_5xx AggregateFunction(sum, UInt8),
    latency AggregateFunction(quantilesTiming(0.5, 0.95, 0.99), UInt32)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, key_id, user_id, key_prefix, plan);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_key_hourly_mv TO {db}.usage_key_hourly AS
SELECT toStartOfHour(ts) AS hour, key_id, user_id, key_prefix, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM {db}.usage_events
GROUP BY hour, key_id, user_id, key_prefix, plan;

-- Daily rollups of the two above, for the whole days of a range (a query over a year reads 365 rows
-- per route or key and plan, not 8760): day is the start of the UTC day.
CREATE TABLE IF NOT EXISTS {db}.usage_route_daily (
    day DateTime,
    route String,
    method String,
    plan String,
    requests AggregateFunction(count),
    tokens AggregateFunction(sum, UInt32),
    overage AggregateFunction(sum, UInt32),
    errors_4xx AggregateFunction(sum, UInt8),
    errors_5xx AggregateFunction(sum, UInt8),
    latency AggregateFunction(quantilesTiming(0.5, 0.95, 0.99), UInt32)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (day, route, method, plan);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_route_daily_mv TO {db}.usage_route_daily AS
SELECT toStartOfDay(ts) AS day, route, method, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM {db}.usage_events
GROUP BY day, route, method, plan;

CREATE TABLE IF NOT EXISTS {db}.usage_key_daily (
    day DateTime,
    key_id String,
    user_id String,
    key_prefix String,
    plan String,
    requests AggregateFunction(count),
    tokens AggregateFunction(sum, UInt32),
    overage AggregateFunction(sum, UInt32),
    errors_4xx AggregateFunction(sum, UInt8),
    errors_5xx AggregateFunction(sum, UInt8),
    latency AggregateFunction(quantilesTiming(0.5, 0.95, 0.99), UInt32)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (day, key_id, user_id, key_prefix, plan);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_key_daily_mv TO {db}.usage_key_daily AS
SELECT toStartOfDay(ts) AS day, key_id, user_id, key_prefix, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM {db}.usage_events
GROUP BY day, key_id, user_id, key_prefix, plan;

-- The full grain, per user x hour x key x route x method: /api/auth/me/usage/routes (one user's rows
-- are contiguous: user_id leads the sorting key) and /api/analytics/usage?group_by=key&route=...
CREATE TABLE IF NOT EXISTS {db}.usage_hourly (
    user_id String,
    hour DateTime,
    key_id String,
    key_prefix String,
    plan String,
    route String,
    method String,
    requests AggregateFunction(count),
    tokens AggregateFunction(sum, UInt32),
    overage AggregateFunction(sum, UInt32),
    errors_4xx AggregateFunction(sum, UInt8),
    errors_5xx AggregateFunction(sum, UInt8),
    latency AggregateFunction(quantilesTiming(0.5, 0.95, 0.99), UInt32)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(hour)
ORDER BY (user_id, hour, key_id, key_prefix, plan, route, method);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_hourly_mv TO {db}.usage_hourly AS
SELECT user_id, toStartOfHour(ts) AS hour, key_id, key_prefix, plan, route, method,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM {db}.usage_events
GROUP BY user_id, hour, key_id, key_prefix, plan, route, method;

-- Quota events, per UTC day x kind x key: 'quota_exhausted' (refusals with QUOTA_EXCEEDED) and
-- 'overage' (requests charged beyond the allowance; the first of a key's billing month is its
-- overage_started event). first: the earliest time of the day; requests: how many that day.
CREATE TABLE IF NOT EXISTS {db}.usage_quota_daily (
    day Date,
    kind String,
    key_id String,
    user_id String,
    key_prefix String,
    plan String,
    first AggregateFunction(min, DateTime),
    requests AggregateFunction(count)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (day, kind, key_id, user_id, key_prefix, plan);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_quota_daily_mv TO {db}.usage_quota_daily AS
SELECT toDate(ts) AS day, if(error_code = 'QUOTA_EXCEEDED', 'quota_exhausted', 'overage') AS kind,
    key_id, user_id, key_prefix, plan, minState(ts) AS first, countState() AS requests
FROM {db}.usage_events
WHERE error_code = 'QUOTA_EXCEEDED' OR overage > 0
GROUP BY day, kind, key_id, user_id, key_prefix, plan;
