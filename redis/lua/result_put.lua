-- result_put: store a screening result and hand back what its change is measured against, in one step
-- on the symbol's slot: the baseline (the verdict key and basis of the last state the change log
-- recorded for the symbol and ruleset), else the result this one replaces. A baseline whose verdict
-- key is the result's answers "unchanged" without sending it back (the common case: a rescreen whose
-- verdicts stand). The change itself is recorded afterwards in the change log (another slot:
-- change_add.lua) and the baseline advanced (change_settle.lua); a failure between leaves the
-- baseline where it was, so the next write of the symbol records the change then.
--
-- KEYS[1]  shr:result:{<sym>}:<ruleset>     the result (served value)
-- KEYS[2]  shr:changes:baseline:{<sym>}     hash: ruleset -> "<verdict key>\n<basis JSON>"
-- ARGV[1]  the result's value
-- ARGV[2]  the ruleset (the baseline's field)
-- ARGV[3]  the result's verdict key (screening.VerdictKey)
--
-- Returns {3} when the baseline's verdict key is the result's, {1, baseline} when it differs, {2,
-- previous value} when there is no baseline but a result is replaced (stored before change events
-- existed, or its first baseline not yet written), {0} for a first screening.
local base = redis.call('HGET', KEYS[2], ARGV[2])
if base then
  redis.call('SET', KEYS[1], ARGV[1])
  if string.sub(base, 1, #ARGV[3] + 1) == ARGV[3] .. '\n' then
    return {3}
  end
  return {1, base}
end
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
if old then
  return {2, old}
end
return {0}
