-- meter_charge: resolve a key, check its plan's monthly allowance and charge a request, atomically.
--
-- KEYS[1]  key record hash      shr:key:{<sha256>}
-- KEYS[2]  period meter hash    shr:meter:{<sha256>}:<YYYYMM>   (same hash tag: runs on Redis Cluster)
-- ARGV[1]  cost in tokens (integer >= 0)
-- ARGV[2]  meter TTL in seconds (set when the period's meter is created)
-- ARGV[3..] the plan table, three values per plan: id, monthly allowance (-1 unlimited), hard block (1/0)
--
-- Returns {status, id, prefix, user_id, plan, limit, used, charged, overage}
--   status 0 charged; 1 unknown key (only status is set); 2 deactivated; 3 refused: allowance reached on
--   a hard-block plan (nothing charged); 4 the key's plan is not in the plan table.
-- A zero cost writes nothing, so free routes cost one read.
local rec = redis.call('HMGET', KEYS[1], 'id', 'prefix', 'user_id', 'plan', 'active')
if not rec[1] then
  return {1}
end
local id, prefix, user, plan = rec[1], rec[2] or '', rec[3] or '', rec[4] or ''
if rec[5] ~= '1' then
  return {2, id, prefix, user, plan, 0, 0, 0, 0}
end
local limit, hard = nil, false
for i = 3, #ARGV, 3 do
  if ARGV[i] == plan then
    limit = tonumber(ARGV[i + 1])
    hard = ARGV[i + 2] == '1'
    break
  end
end
if limit == nil then
  return {4, id, prefix, user, plan, 0, 0, 0, 0}
end
local cost = tonumber(ARGV[1])
local used = tonumber(redis.call('HGET', KEYS[2], 'used') or '0')
local overage = 0
if limit >= 0 and used + cost > limit then
  if hard then
    return {3, id, prefix, user, plan, limit, used, 0, 0}
  end
  overage = math.min(cost, used + cost - limit)
end
if cost > 0 then
  used = redis.call('HINCRBY', KEYS[2], 'used', cost)
  if overage > 0 then
    redis.call('HINCRBY', KEYS[2], 'overage', overage)
  end
  if used == cost then
    -- first charge of the period (or back at zero after refunds): give the meter its lifetime once
    redis.call('EXPIRE', KEYS[2], tonumber(ARGV[2]))
  end
end
return {0, id, prefix, user, plan, limit, used, cost, overage}
