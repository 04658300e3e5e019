CREATE DATABASE IF NOT EXISTS shariah ON CLUSTER `main`;

CREATE TABLE IF NOT EXISTS shariah.schema_migrations ON CLUSTER `main` (version UInt32, name String, applied_at DateTime) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/shariah/schema_migrations', '{replica}') ORDER BY version;

CREATE TABLE IF NOT EXISTS shariah.usage_events_local ON CLUSTER `main` (
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
) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/shariah/usage_events', '{replica}')
PARTITION BY toYYYYMM(ts)
ORDER BY (user_id, ts, request_id);

CREATE TABLE IF NOT EXISTS shariah.usage_events ON CLUSTER `main` (
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
) ENGINE = Distributed('main', 'shariah', 'usage_events_local', cityHash64(user_id));

CREATE TABLE IF NOT EXISTS shariah.trajectory_local ON CLUSTER `main` (
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
) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/shariah/trajectory', '{replica}', ingested_at)
PARTITION BY toYear(period_end)
ORDER BY (symbol, period_end, period);

CREATE TABLE IF NOT EXISTS shariah.trajectory ON CLUSTER `main` (
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
) ENGINE = Distributed('main', 'shariah', 'trajectory_local', cityHash64(symbol));

ALTER TABLE shariah.usage_events_local ON CLUSTER `main` ADD COLUMN plan String DEFAULT '';

DROP TABLE IF EXISTS shariah.usage_events ON CLUSTER `main`;

CREATE TABLE IF NOT EXISTS shariah.usage_events ON CLUSTER `main` AS shariah.usage_events_local ENGINE = Distributed('main', 'shariah', 'usage_events_local', cityHash64(user_id));

ALTER TABLE shariah.usage_events_local ON CLUSTER `main` ADD COLUMN error_code String DEFAULT '';

DROP TABLE IF EXISTS shariah.usage_events ON CLUSTER `main`;

CREATE TABLE IF NOT EXISTS shariah.usage_events ON CLUSTER `main` AS shariah.usage_events_local ENGINE = Distributed('main', 'shariah', 'usage_events_local', cityHash64(user_id));

CREATE TABLE IF NOT EXISTS shariah.usage_route_hourly_local ON CLUSTER `main` (
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
) ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/shariah/usage_route_hourly', '{replica}')
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, route, method, plan);

CREATE TABLE IF NOT EXISTS shariah.usage_route_hourly ON CLUSTER `main` (
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
) ENGINE = Distributed('main', 'shariah', 'usage_route_hourly_local', cityHash64(hour));

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_route_hourly_mv ON CLUSTER `main` TO shariah.usage_route_hourly_local AS
SELECT toStartOfHour(ts) AS hour, route, method, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events_local
GROUP BY hour, route, method, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_key_hourly_local ON CLUSTER `main` (
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
) ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/shariah/usage_key_hourly', '{replica}')
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, key_id, user_id, key_prefix, plan);

CREATE TABLE IF NOT EXISTS shariah.usage_key_hourly ON CLUSTER `main` (
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
) ENGINE = Distributed('main', 'shariah', 'usage_key_hourly_local', cityHash64(hour));

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_key_hourly_mv ON CLUSTER `main` TO shariah.usage_key_hourly_local AS
SELECT toStartOfHour(ts) AS hour, key_id, user_id, key_prefix, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events_local
GROUP BY hour, key_id, user_id, key_prefix, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_route_daily_local ON CLUSTER `main` (
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
) ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/shariah/usage_route_daily', '{replica}')
PARTITION BY toYYYYMM(day)
ORDER BY (day, route, method, plan);

CREATE TABLE IF NOT EXISTS shariah.usage_route_daily ON CLUSTER `main` (
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
) ENGINE = Distributed('main', 'shariah', 'usage_route_daily_local', cityHash64(day));

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_route_daily_mv ON CLUSTER `main` TO shariah.usage_route_daily_local AS
SELECT toStartOfDay(ts) AS day, route, method, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events_local
GROUP BY day, route, method, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_key_daily_local ON CLUSTER `main` (
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
) ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/shariah/usage_key_daily', '{replica}')
PARTITION BY toYYYYMM(day)
ORDER BY (day, key_id, user_id, key_prefix, plan);

CREATE TABLE IF NOT EXISTS shariah.usage_key_daily ON CLUSTER `main` (
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
) ENGINE = Distributed('main', 'shariah', 'usage_key_daily_local', cityHash64(day));

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_key_daily_mv ON CLUSTER `main` TO shariah.usage_key_daily_local AS
SELECT toStartOfDay(ts) AS day, key_id, user_id, key_prefix, plan,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events_local
GROUP BY day, key_id, user_id, key_prefix, plan;

CREATE TABLE IF NOT EXISTS shariah.usage_hourly_local ON CLUSTER `main` (
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
) ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/shariah/usage_hourly', '{replica}')
PARTITION BY toYYYYMM(hour)
ORDER BY (user_id, hour, key_id, key_prefix, plan, route, method);

CREATE TABLE IF NOT EXISTS shariah.usage_hourly ON CLUSTER `main` (
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
) ENGINE = Distributed('main', 'shariah', 'usage_hourly_local', cityHash64(user_id));

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_hourly_mv ON CLUSTER `main` TO shariah.usage_hourly_local AS
SELECT user_id, toStartOfHour(ts) AS hour, key_id, key_prefix, plan, route, method,
    countState() AS requests, sumState(tokens) AS tokens, sumState(overage) AS overage,
    sumState(toUInt8(status >= 400 AND status < 500)) AS errors_4xx,
    sumState(toUInt8(status >= 500)) AS errors_5xx,
    quantilesTimingState(0.5, 0.95, 0.99)(toUInt32(intDiv(latency_us + 999, 1000))) AS latency
FROM shariah.usage_events_local
GROUP BY user_id, hour, key_id, key_prefix, plan, route, method;

CREATE TABLE IF NOT EXISTS shariah.usage_quota_daily_local ON CLUSTER `main` (
    day Date,
    kind String,
    key_id String,
    user_id String,
    key_prefix String,
    plan String,
    first AggregateFunction(min, DateTime),
    requests AggregateFunction(count)
) ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/shariah/usage_quota_daily', '{replica}')
PARTITION BY toYYYYMM(day)
ORDER BY (day, kind, key_id, user_id, key_prefix, plan);

CREATE TABLE IF NOT EXISTS shariah.usage_quota_daily ON CLUSTER `main` (
    day Date,
    kind String,
    key_id String,
    user_id String,
    key_prefix String,
    plan String,
    first AggregateFunction(min, DateTime),
    requests AggregateFunction(count)
) ENGINE = Distributed('main', 'shariah', 'usage_quota_daily_local', cityHash64(day));

CREATE MATERIALIZED VIEW IF NOT EXISTS shariah.usage_quota_daily_mv ON CLUSTER `main` TO shariah.usage_quota_daily_local AS
SELECT toDate(ts) AS day, if(error_code = 'QUOTA_EXCEEDED', 'quota_exhausted', 'overage') AS kind,
    key_id, user_id, key_prefix, plan, minState(ts) AS first, countState() AS requests
FROM shariah.usage_events_local
WHERE error_code = 'QUOTA_EXCEEDED' OR overage > 0
GROUP BY day, kind, key_id, user_id, key_prefix, plan;

ALTER TABLE shariah.trajectory_local ON CLUSTER `main` ADD COLUMN form String DEFAULT '';

DROP TABLE IF EXISTS shariah.trajectory ON CLUSTER `main`;

CREATE TABLE IF NOT EXISTS shariah.trajectory ON CLUSTER `main` AS shariah.trajectory_local ENGINE = Distributed('main', 'shariah', 'trajectory_local', cityHash64(symbol));

ALTER TABLE shariah.usage_events_local ON CLUSTER `main` ADD COLUMN event_id UInt64 DEFAULT 0;

DROP TABLE IF EXISTS shariah.usage_events ON CLUSTER `main`;

CREATE TABLE IF NOT EXISTS shariah.usage_events ON CLUSTER `main` AS shariah.usage_events_local ENGINE = Distributed('main', 'shariah', 'usage_events_local', cityHash64(user_id));
