CREATE DATABASE IF NOT EXISTS shariah;

CREATE TABLE IF NOT EXISTS shariah.schema_migrations (version UInt32, name String, applied_at DateTime) ENGINE = TinyLog;

CREATE TABLE IF NOT EXISTS shariah.usage_events (
    request_id String,
    key_id String,
    user_id String,
    key_prefix String,
    method String,
    route String,
    status UInt16,
    tokens UInt32,
    overage UInt32,
    latency_us UInt64,
    ts DateTime,
    ts_ms UInt64
) ENGINE = MergeTree()
PARTITION BY toYYYYMM(ts)
ORDER BY (user_id, ts, request_id);

CREATE TABLE IF NOT EXISTS shariah.trajectory (
    symbol String,
    period_end Date,
    period String,
    fiscal_year UInt16,
    debt_assets Float64,
    cash_assets Float64,
    liquidity_assets Float64,
    interest_revenue Float64,
    has_debt UInt8,
    has_cash UInt8,
    has_liquidity UInt8,
    has_interest UInt8,
    source String,
    accession String,
    ingested_at DateTime
) ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYear(period_end)
ORDER BY (symbol, period_end, period);

ALTER TABLE shariah.usage_events ADD COLUMN plan String DEFAULT '';

ALTER TABLE shariah.usage_events ADD COLUMN error_code String DEFAULT '';

CREATE TABLE IF NOT EXISTS shariah.usage_route_hourly (
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

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_route_hourly_mv TO shariah.usage_route_hourly AS
SELECT toStartOfHour(ts) AS hour, route, method, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events
GROUP BY hour, route, method, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_key_hourly (
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

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_key_hourly_mv TO shariah.usage_key_hourly AS
SELECT toStartOfHour(ts) AS hour, key_id, user_id, key_prefix, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events
GROUP BY hour, key_id, user_id, key_prefix, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_route_daily (
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

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_route_daily_mv TO shariah.usage_route_daily AS
SELECT toStartOfDay(ts) AS day, route, method, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events
GROUP BY day, route, method, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_key_daily (
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

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_key_daily_mv TO shariah.usage_key_daily AS
SELECT toStartOfDay(ts) AS day, key_id, user_id, key_prefix, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events
GROUP BY day, key_id, user_id, key_prefix, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_hourly (
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

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_hourly_mv TO shariah.usage_hourly AS
SELECT user_id, toStartOfHour(ts) AS hour, key_id, key_prefix, plan, route, method,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events
GROUP BY user_id, hour, key_id, key_prefix, plan, route, method;

CREATE TABLE IF NOT EXISTS shariah.usage_quota_daily (
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

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_quota_daily_mv TO shariah.usage_quota_daily AS
SELECT toDate(ts) AS day, if(error_code = 'QUOTA_EXCEEDED', 'quota_exhausted', 'overage') AS kind,
    key_id, user_id, key_prefix, plan, minState(ts) AS first, countState() AS requests
FROM shariah.usage_events
WHERE error_code = 'QUOTA_EXCEEDED' OR overage > 0
GROUP BY day, kind, key_id, user_id, key_prefix, plan;

ALTER TABLE shariah.trajectory ADD COLUMN form String DEFAULT '';

ALTER TABLE shariah.usage_events ADD COLUMN event_id UInt64 DEFAULT 0;
