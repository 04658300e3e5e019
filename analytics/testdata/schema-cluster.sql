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
