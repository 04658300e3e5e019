package redis

import "time"

// Every Redis key name of the service. All keys start with "shr:"; the part in braces is the Redis
// Cluster hash tag: keys that one script or one multi-key command touches share it, so they live on one
// slot (a cluster refuses others with CROSSSLOT; TestEveryScriptOnRedisCluster runs every script and
// multi-key command on one). Commands pipelined with DoMulti may span slots: rueidis sends each to its
// node. "JSON" is a string holding a JSON document; "served" is JSON that is also the route's response
// body with its ETag (served.go: a header in front, read by position; written with the record, and added
// by a reader that finds none of its variant with lua/replace_if_equal.lua, if the value is unchanged).
// TTLs not listed are none (the key lives until rewritten or deleted).
//
//	key                                   type         TTL                               hash tag
//	--- API keys and metering (keys.go, meter.go, lua/meter_*.lua)
//	shr:key:{<sha256>}                    hash         -                                 key hash
//	shr:meter:{<sha256>}:<YYYYMM>         hash         period end + 62 days (meterTTL)   key hash
//	shr:rate:{<sha256>}                   string       until the burst is whole + 1 s    key hash
//	shr:prefix:<prefix>                   string       -                                 -
//	shr:user:{<user>}:keys                zset         -                                 user
//	shr:email:<email>                     string       -                                 -
//	shr:window:{<group>}:<bucket>         string       the window (lua/window_take.lua)  group ({keygen})
//	--- reference data (reference.go; quotes as served, served.go)
//	shr:asset:{<sym>}                     JSON         -                                 symbol
//	shr:bars:{<sym>}                      hash         -                                 symbol
//	shr:fund:{<sym>}                      JSON         -                                 symbol
//	shr:quote:{<sym>}                     JSON, served -                                 symbol
//	shr:div:{<sym>}                       JSON         -                                 symbol
//	shr:holdings:{<etf>}                  JSON         -                                 ETF symbol
//	shr:holdings:etfs                     set          -                                 -
//	shr:index:{<name>}                    JSON         -                                 index name
//	shr:indices                           set          -                                 -
//	shr:metal:<metal>                     JSON         -                                 -
//	shr:fx                                JSON         -                                 -
//	shr:trending                          JSON         -                                 -
//	shr:assets, shr:series                set          -                                 -
//	shr:ref:version                       string (int) -                                 -
//	shr:fund-source:<source>              set          -                                 -
//	--- screening results (results.go; as served, served.go)
//	shr:result:{<sym>}:<ruleset>          JSON, served -                                 symbol
//	shr:etfresult:{<sym>}:<ruleset>       JSON         -                                 ETF symbol
//	shr:results                           set          -                                 -
//	shr:results:source:<source>           set          -                                 -
//	shr:results:updated:<ruleset>         zset         -                                 -
//	--- verdict changes (changes.go, lua/result_put.lua, lua/change_*.lua)
//	shr:changes:{changes}                 stream       entries: the retention (MINID)    changes
//	shr:changes:{changes}:trimmed         string       -                                 changes
//	shr:changes:baseline:{<sym>}          hash         -                                 symbol
//	--- bulk runs (runs.go, lua/run_*.lua)
//	shr:run:{<id>}                        hash         -                                 run id
//	shr:run:{<id>}:symbols                list         -                                 run id
//	shr:run:{<id>}:items                  hash         -                                 run id
//	shr:run:{<id>}:lease                  string       the lease (short, renewed)        run id
//	shr:runs                              zset         -                                 -
//	shr:runs:active:<index>               string       the claim's TTL                   -
//	--- ingestion (ingest.go, checkpoints.go)
//	shr:filings:{<sym>}                   JSON         -                                 symbol
//	shr:facts:{<sym>}                     JSON         -                                 symbol
//	shr:ingest:health:<source>            JSON         -                                 -
//	shr:ingest:sources                    set          -                                 -
//	shr:ingest:lock:<name>                string       the lock's TTL                    -
//	shr:ingest:checkpoints:{<source>}     hash         -                                 source
//	--- news (news.go)
//	shr:news:{<id>}                       JSON         -                                 article id
//	shr:news:all, shr:news:sym:<sym>      zset         -                                 -
//	shr:news:titles                       hash         -                                 -
//	--- popularity, watchlists, sukuk, billing
//	shr:popular:{q}:<YYYY-MM-DD>          zset         8 days                            q (all days)
//	shr:wl:{<user>}                       zset         -                                 user
//	shr:wl:{<user>}:<id>                  hash         -                                 user
//	shr:wl:{<user>}:<id>:syms             zset         -                                 user
//	shr:sukuk                             hash         -                                 -
//	shr:billing:event:<id>                string       30 days (eventTTL)                -
//	shr:billing:sub:<user>                JSON         -                                 -
//	shr:billing:customer:<customer>       string       -                                 -
//	shr:billing:downgrades                zset         -                                 -
//	--- webhooks (webhooks.go, lua/webhook_*.lua): every endpoint on one slot ({ep}), so creating one
//	    checks its user's count atomically and the fan-out reads them all in one HGETALL (thousands)
//	shr:wh:{ep}:all                       hash         -                                 ep (id -> JSON)
//	shr:wh:{ep}:user:<user>               zset         -                                 ep
//	shr:wh:{ep}:disabled                  hash         -                                 ep (id -> JSON)
//	shr:wh:{ep}:health                    hash         -                                 ep (<id>:since, <id>:streak)
//	shr:wh:event:{<event id>}             string       retention (7 days)                event id
//	shr:wh:dlv:{<endpoint>}               zset         retention, trimmed to it          endpoint id
//	shr:wh:dlv:{<endpoint>}:<delivery>    JSON         retention (7 days)                endpoint id
//	shr:wh:cursor                         string       -                                 -

// API keys and metering.
func keyRecordKey(hash string) string       { return "shr:key:{" + hash + "}" }
func meterKey(hash, periodID string) string { return "shr:meter:{" + hash + "}:" + periodID }
func rateKey(hash string) string            { return "shr:rate:{" + hash + "}" }
func prefixKey(prefix string) string        { return "shr:prefix:" + prefix }
func userKeysKey(userID string) string      { return "shr:user:{" + userID + "}:keys" }
func emailKey(email string) string          { return "shr:email:" + email }
func windowKey(group, bucket string) string { return "shr:window:{" + group + "}:" + bucket }

// Reference data. Per-symbol keys share the symbol's hash tag, so a symbol's record, candles, quote and
// fundamentals live on one cluster slot.
func assetKey(sym string) string    { return "shr:asset:{" + sym + "}" }
func barsKey(sym string) string     { return "shr:bars:{" + sym + "}" }
func fundKey(sym string) string     { return "shr:fund:{" + sym + "}" }
func quoteKey(sym string) string    { return "shr:quote:{" + sym + "}" }
func divKey(sym string) string      { return "shr:div:{" + sym + "}" }
func holdingsKey(etf string) string { return "shr:holdings:{" + etf + "}" }
func holdingsSetKey() string        { return "shr:holdings:etfs" }
func indexKey(name string) string   { return "shr:index:{" + name + "}" }
func indexSetKey() string           { return "shr:indices" }
func metalKey(metal string) string  { return "shr:metal:" + metal }
func fxKey() string                 { return "shr:fx" }
func trendingKey() string           { return "shr:trending" }
func assetSetKey() string           { return "shr:assets" }
func seriesSetKey() string          { return "shr:series" }
func refVersionKey() string         { return "shr:ref:version" }

// fundSourceKey is the set of symbols whose stored fundamentals stand on source
// (shariah.FundamentalsSourceOf).
func fundSourceKey(source string) string { return "shr:fund-source:" + source }

// Screening results: one record per symbol and ruleset (hash-tagged by symbol), a set of every cached
// result (for the stats), the cached results ("SYMBOL|ruleset") by what their fundamentals stand on, and
// per ruleset a sorted set of symbols scored by the time of their last write: the time-ordered index
// behind /api/results/updates.
func resultKey(sym, ruleset string) string    { return "shr:result:{" + sym + "}:" + ruleset }
func etfResultKey(sym, ruleset string) string { return "shr:etfresult:{" + sym + "}:" + ruleset }
func resultSetKey() string                    { return "shr:results" }
func resultSourceKey(source string) string    { return "shr:results:source:" + source }
func updatedKey(ruleset string) string        { return "shr:results:updated:" + ruleset }

// Verdict changes: one stream of every change (one key, so one slot of a cluster, ordered by its ids),
// the id of the newest change the retention dropped beside it, and per symbol the basis of the last
// change recorded per ruleset (hash-tagged by symbol: result_put.lua writes it with the result).
func changesKey() string                  { return "shr:changes:{changes}" }
func changesTrimmedKey() string           { return "shr:changes:{changes}:trimmed" }
func changeBaselineKey(sym string) string { return "shr:changes:baseline:{" + sym + "}" }

// Bulk runs. A run's keys share the run id's hash tag (so one script may touch several in Redis
// Cluster): its record, symbols, items and lease (the executing worker's token with a short TTL); the
// history is a sorted set by creation time; an index's active run is a string with a TTL (a crashed
// scheduler cannot hold an index forever).
func runKey(id string) string         { return "shr:run:{" + id + "}" }
func runSymbolsKey(id string) string  { return "shr:run:{" + id + "}:symbols" }
func runItemsKey(id string) string    { return "shr:run:{" + id + "}:items" }
func runLeaseKey(id string) string    { return "shr:run:{" + id + "}:lease" }
func runsKey() string                 { return "shr:runs" }
func indexActiveKey(ix string) string { return "shr:runs:active:" + ix }

// Ingestion: filings and facts per symbol, each source's health record, the set of sources, a lock per
// job, and a source's hash of checkpoints, one field per item (the SEC source: one per CIK).
func filingsKey(sym string) string        { return "shr:filings:{" + sym + "}" }
func factsKey(sym string) string          { return "shr:facts:{" + sym + "}" }
func healthKey(name string) string        { return "shr:ingest:health:" + name }
func healthSetKey() string                { return "shr:ingest:sources" }
func ingestLockKey(name string) string    { return "shr:ingest:lock:" + name }
func checkpointsKey(source string) string { return "shr:ingest:checkpoints:{" + source + "}" }
func articleKey(id string) string         { return "shr:news:{" + id + "}" }
func newsAllKey() string                  { return "shr:news:all" }
func newsSymKey(sym string) string        { return "shr:news:sym:" + sym }
func newsTitlesKey() string               { return "shr:news:titles" }

// popularKey is one sorted set per UTC day, kept 8 days; the hash tag keeps them in one slot.
func popularKey(day time.Time) string { return "shr:popular:{q}:" + day.UTC().Format("2006-01-02") }

// A user's watchlist keys share the hash tag {user}, so the scripts run in one slot of a cluster.
func wlListKey(user string) string     { return "shr:wl:{" + user + "}" }
func wlRecKey(user, id string) string  { return "shr:wl:{" + user + "}:" + id }
func wlSymsKey(user, id string) string { return "shr:wl:{" + user + "}:" + id + ":syms" }

func sukukKey() string { return "shr:sukuk" }

// Billing: processed event ids (eventTTL), a user's subscription, a payment customer's user, and the
// downgrades due, scored by when.
func billingEventKey(id string) string   { return "shr:billing:event:" + id }
func billingSubKey(user string) string   { return "shr:billing:sub:" + user }
func billingCustomerKey(c string) string { return "shr:billing:customer:" + c }
func billingDowngradesKey() string       { return "shr:billing:downgrades" }

// Webhooks.
func whAllKey() string                 { return "shr:wh:{ep}:all" }
func whUserKey(user string) string     { return "shr:wh:{ep}:user:" + user }
func whDisabledKey() string            { return "shr:wh:{ep}:disabled" }
func whHealthKey() string              { return "shr:wh:{ep}:health" }
func whEventKey(id string) string      { return "shr:wh:event:{" + id + "}" }
func whDeliveriesKey(ep string) string { return "shr:wh:dlv:{" + ep + "}" }
func whDeliveryKey(ep, id string) string {
	return "shr:wh:dlv:{" + ep + "}:" + id
}
func whCursorKey() string { return "shr:wh:cursor" }
