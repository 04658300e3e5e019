-- One row per metered request. MergeTree with monthly partitions; SQL valid on ClickHouse 18.16 and current
-- (no DateTime64, no TTL, no LowCardinality). ts_ms orders requests within a second.
CREATE TABLE IF NOT EXISTS {db}.usage_events (
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
ORDER BY (user_id, ts, request_id)
