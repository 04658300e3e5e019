-- change_settle: advance a symbol's change baseline to the state just recorded, only if it still holds
-- the one the change was measured against (a compare-and-set: another write may have moved it).
--
-- KEYS[1]  shr:changes:baseline:{<sym>}     hash: ruleset -> "<verdict key>\n<basis JSON>"
-- ARGV[1]  the ruleset (field)
-- ARGV[2]  the baseline measured against ("" when there was none)
-- ARGV[3]  the new baseline
--
-- Returns 1 when advanced, 0 when the baseline had moved.
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if (cur or '') == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
