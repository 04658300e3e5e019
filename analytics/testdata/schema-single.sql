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
