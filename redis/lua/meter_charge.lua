-- meter_charge: resolve a key, check its plan's monthly allowance and charge a request, atomically.
--
-- KEYS[1]  key record hash      shr:key:{<sha256>}
-- KEYS[2]  period meter hash    shr:meter:{<sha256>}:<YYYYMM>   (same hash tag: runs on Redis Cluster)
-- KEYS[3]  request-rate state   shr:rate:{<sha256>}             (GCRA: the theoretical arrival time, us)
-- ARGV[1]  cost in tokens (integer >= 0)
-- ARGV[2]  meter TTL in seconds (set when the period's meter is created)
-- ARGV[3..] the plan table, five values per plan: id, monthly allowance (-1 unlimited), hard block (1/0),
--          requests per second (0: no rate limit), burst
--
-- Returns {status, id, prefix, user_id, plan, limit, used, charged, overage, rl_burst, rl_remaining,
--          rl_reset_ms, rl_retry_ms}
--   status 0 charged; 1 unknown key (only status is set); 2 deactivated; 3 refused: allowance reached on
--   a hard-block plan (nothing charged); 4 the key's plan is not in the plan table; 5 refused: the plan's
--   request rate exceeded (nothing charged, rl_retry_ms says when the next request is allowed).
-- The rate limit is a GCRA on Redis's clock (TIME), so it holds across edges: each request moves the
-- theoretical arrival time on by 1000/rps ms; a request that would put it more than burst intervals
-- ahead of now is refused (requests refused for the allowance count towards the rate too). rl_burst is
-- 0 for a plan without a rate limit; rl_reset_ms is when the burst is whole again.
-- A zero cost writes no meter, so free routes cost one read (and the rate state).
local rec = redis.call('HMGET', KEYS[1], 'id', 'prefix', 'user_id', 'plan', 'active')
if not rec[1] then
  return {1}
end
local id, prefix, user, plan = rec[1], rec[2] or '', rec[3] or '', rec[4] or ''
if rec[5] ~= '1' then
  return {2, id, prefix, user, plan, 0, 0, 0, 0}
end
local limit, hard, rps, burst = nil, false, 0, 0
for i = 3, #ARGV, 5 do
  if ARGV[i] == plan then
    limit = tonumber(ARGV[i + 1])
    hard = ARGV[i + 2] == '1'
    rps = tonumber(ARGV[i + 3])
    burst = tonumber(ARGV[i + 4])
    break
  end
end
if limit == nil then
  return {4, id, prefix, user, plan, 0, 0, 0, 0}
end
local cost = tonumber(ARGV[1])
local used = tonumber(redis.call('HGET', KEYS[2], 'used') or '0')
-- the request rate (GCRA, in microseconds), before the allowance: a refused request charges nothing
local rlRemaining, rlReset = 0, 0
if rps > 0 and burst > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local interval = 1000000 / rps
  local tat = tonumber(redis.call('GET', KEYS[3]) or '0')
  if tat < now then
    tat = now
  end
  local newTat = tat + interval
  local ahead = newTat - now
  local allowance = burst * interval
  if ahead > allowance then
    return {5, id, prefix, user, plan, limit, used, 0, 0, burst, 0, math.ceil((tat - now) / 1000), math.ceil((ahead - allowance) / 1000)}
  end
  redis.call('SET', KEYS[3], string.format('%.0f', newTat), 'PX', math.ceil(ahead / 1000) + 1000)
  rlRemaining = math.floor((allowance - ahead) / interval)
  rlReset = math.ceil(ahead / 1000)
end
local overage = 0
if limit >= 0 and used + cost > limit then
  if hard then
    return {3, id, prefix, user, plan, limit, used, 0, 0, burst, rlRemaining, rlReset, 0}
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
return {0, id, prefix, user, plan, limit, used, cost, overage, burst, rlRemaining, rlReset, 0}
