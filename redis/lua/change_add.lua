-- change_add: append a verdict change to the change log, first dropping the changes older than the
-- retention and noting the newest one dropped (a feed cursor before it has lost changes: 410).
--
-- KEYS[1]  shr:changes:{changes}            stream of changes (id = the feed's cursor)
-- KEYS[2]  shr:changes:{changes}:trimmed    string: the id of the newest change dropped
-- ARGV[1]  the oldest id kept ("<ms>-0": now minus the retention, in milliseconds)
-- ARGV[2]  symbol, ARGV[3] ruleset, ARGV[4] the change (JSON, without its id)
--
-- Returns the new change's id.
local last = redis.call('XREVRANGE', KEYS[1], '(' .. ARGV[1], '-', 'COUNT', 1)
if #last > 0 then
  redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])
  redis.call('SET', KEYS[2], last[1][1])
end
return redis.call('XADD', KEYS[1], '*', 'symbol', ARGV[2], 'ruleset', ARGV[3], 'change', ARGV[4])
