-- result_put: store a screening result and hand back what its change is measured against, in one step
-- on the symbol's slot: the basis of the last change recorded for the symbol and ruleset (the
-- baseline), else the result this one replaces. The change itself is recorded afterwards in the change
-- log (another slot: change_add.lua) and the baseline advanced (change_settle.lua); a failure between
-- leaves the baseline where it was, so the next write of the symbol records the change then.
--
-- KEYS[1]  shr:result:{<sym>}:<ruleset>     the result (served value)
-- KEYS[2]  shr:changes:baseline:{<sym>}     hash: ruleset -> the basis (JSON) of the last state recorded
-- ARGV[1]  the result's value
-- ARGV[2]  the ruleset (the baseline's field)
-- ARGV[3]  the result's basis (JSON), the baseline of a first screening
--
-- Returns {1, basis} when a baseline exists, {2, previous value} when none does but a result is
-- replaced (stored before change events existed), {0} for a first screening (its basis becomes the
-- baseline: nothing to compare it with).
local base = redis.call('HGET', KEYS[2], ARGV[2])
if base then
  redis.call('SET', KEYS[1], ARGV[1])
  return {1, base}
end
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
if old then
  return {2, old}
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {0}
