-- The 8-quarter trajectory: per symbol and quarter, the screening ratios over total assets and revenue.
-- ReplacingMergeTree keeps the latest ingest of a quarter; reads use FINAL. No Nullable (18.16): a ratio
-- the filings did not allow is flagged by has_* = 0.
CREATE TABLE IF NOT EXISTS {db}.trajectory (
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
ORDER BY (symbol, period_end, period)
