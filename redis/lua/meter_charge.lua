-- meter_charge: resolve a key, check its plan's allowance and request rate, charge a request, and settle
-- and grant an edge's token lease, atomically. The one place where a key's tokens are counted.
--
-- KEYS[1]  key record hash      shr:key:{<sha256>}
-- KEYS[2]  period meter hash    shr:meter:{<sha256>}:<YYYYMM>   (same hash tag: runs on Redis Cluster)
-- KEYS[3]  request-rate state   shr:rate:{<sha256>}             (GCRA: the theoretical arrival time, us)
-- ARGV[1]  cost in tokens of the request (integer >= 0)
-- ARGV[2]  meter TTL in seconds (set when the period's meter is created)
-- ARGV[3]  '1': charge a request; '0': settle and top up a lease only (no request)
-- ARGV[4]  edge id; '' for the exact per-request path (no lease)
-- ARGV[5]  tokens the edge spent from its lease since its last settle (negative after refunds)
-- ARGV[6]  tokens the edge gives back from its lease
-- ARGV[7]  request credits the edge gives back
-- ARGV[8]  tokens the edge asks for (0: none)
-- ARGV[9]  request credits the edge asks for (0: none)
-- ARGV[10] the smallest lease worth granting, in tokens; grants are whole multiples of ARGV[1] when > 0
-- ARGV[11] lease lifetime in ms: a lease not settled within it is counted as spent (its edge is gone)
-- ARGV[12..] the plan table, five values per plan: id, monthly allowance (-1 unlimited), hard block (1/0),
--          requests per second (0: no rate limit), burst
--
-- The meter hash holds `used` (tokens spent: charged exactly or reported from leases), `overage`
-- (max(0, used - allowance) on a plan without a hard block), `leased` (tokens granted to edges and not yet
-- reported or given back) and per edge `l:<edge>` (its outstanding lease), `x:<edge>` (when it lapses)
-- and `d:<edge>` (a lapsed lease counted into used, until that edge reports again).
-- The allowance is checked against used + leased, so leases never let a key spend past a hard block; a
-- lapsed lease is added to `used` (an edge that died holding it can over-count by at most its lease, never
-- under-count) and taken out again when its edge turns out to be alive.
--
-- Returns {status, id, prefix, user_id, plan, limit, used, charged, overage, rl_burst, rl_remaining,
--          rl_reset_ms, rl_retry_ms, lease_tokens, lease_kind, lease_credits, leased, lost}
--   status 0 charged (or settled); 1 unknown key (only status is set); 2 deactivated (the settle is
--   applied, nothing granted); 3 refused: allowance reached on a hard-block plan (nothing charged); 4 the
--   key's plan is not in the plan table; 5 refused: the plan's request rate exceeded (nothing charged,
--   rl_retry_ms says when the next request is allowed).
--   lease_tokens granted to the edge now; lease_kind 1 when they lie past the allowance (overage);
--   lease_credits request credits granted (-1: the plan has no rate limit); leased: all edges'
--   outstanding tokens after this call; lost 1 when Redis held no lease of the edge's (it lost the
--   writes that granted it): the report was counted, and the edge drops the tokens it holds.
-- The rate limit is a GCRA on Redis's clock (TIME), so it holds across edges: each request moves the
-- theoretical arrival time on by 1000/rps ms; a request that would put it more than burst intervals
-- ahead of now is refused (requests refused for the allowance count towards the rate too). A credit
-- granted to an edge moves it on the same way; one given back moves it back (never before now).
local rec = redis.call('HMGET', KEYS[1], 'id', 'prefix', 'user_id', 'plan', 'active')
if not rec[1] then
  return {1}
end
local id, prefix, user, plan = rec[1], rec[2] or '', rec[3] or '', rec[4] or ''
local limit, hard, rps, burst = nil, false, 0, 0
for i = 12, #ARGV, 5 do
  if ARGV[i] == plan then
    limit = tonumber(ARGV[i + 1])
    hard = ARGV[i + 2] == '1'
    rps = tonumber(ARGV[i + 3])
    burst = tonumber(ARGV[i + 4])
    break
  end
end
local t = redis.call('TIME')
local nowUS = tonumber(t[1]) * 1000000 + tonumber(t[2])
local nowMS = math.floor(nowUS / 1000)
local charge = ARGV[3] == '1'
local cost = tonumber(ARGV[1])
local edge = ARGV[4]
local mk = KEYS[2]
local m = redis.call('HMGET', mk, 'used', 'leased')
local used, leased = tonumber(m[1] or '0'), tonumber(m[2] or '0')
local written = false
local lost = 0

-- 1. settle the calling edge's lease: what it spent becomes used, what it gives back is free again.
-- A lease that lapsed while its edge lived (a stall, or a Redis outage longer than the lease lifetime)
-- was counted whole into used and kept as `d:<edge>`: the edge's report revives it, so what it did not
-- spend is uncounted again. A report is never capped: tokens an edge served are counted even when Redis
-- no longer holds its grant (a restart that lost writes), and then the edge drops what it holds (lost).
local own = 0
if edge ~= '' then
  local spent, back = tonumber(ARGV[5]), tonumber(ARGV[6])
  local lf = redis.call('HMGET', mk, 'l:' .. edge, 'd:' .. edge)
  if lf[2] then
    local d = tonumber(lf[2])
    used = used - d
    leased = leased + d
    redis.call('HDEL', mk, 'd:' .. edge)
    lf[1] = tostring(tonumber(lf[1] or '0') + d)
    written = true
  end
  if not lf[1] then
    if spent ~= 0 or back > 0 then
      lost = 1
    end
    used = math.max(used + spent, 0)
    written = written or spent ~= 0
  else
    own = tonumber(lf[1])
    local taken = math.min(spent, own)
    used = used + spent
    own = own - taken
    back = math.min(back, own)
    own = own - back
    leased = leased - taken - back
    written = true
  end
end

-- 2. count the lapsed leases of other edges as spent, and count the edges holding one
local holders = 0
if leased > 0 then
  local all = redis.call('HGETALL', mk)
  for i = 1, #all, 2 do
    local f = all[i]
    if string.sub(f, 1, 2) == 'x:' then
      local e = string.sub(f, 3)
      if e ~= edge then
        if tonumber(all[i + 1]) < nowMS then
          local o = tonumber(redis.call('HGET', mk, 'l:' .. e) or '0')
          used = used + o
          leased = leased - o
          redis.call('HDEL', mk, 'l:' .. e, 'x:' .. e)
          redis.call('HINCRBY', mk, 'd:' .. e, o)
          written = true
        else
          holders = holders + 1
        end
      end
    end
  end
end
if leased < 0 then
  leased = 0
end

-- write back the meter (used, overage, leased and the edge's lease) and give a new meter its lifetime
local function save()
  if not written then
    return
  end
  local ov = 0
  if limit ~= nil and limit >= 0 and not hard and used > limit then
    ov = used - limit
  end
  redis.call('HSET', mk, 'used', used, 'leased', leased, 'overage', ov)
  if edge ~= '' then
    if own > 0 then
      redis.call('HSET', mk, 'l:' .. edge, own, 'x:' .. edge, nowMS + tonumber(ARGV[11]))
    else
      redis.call('HDEL', mk, 'l:' .. edge, 'x:' .. edge)
    end
  end
  if redis.call('TTL', mk) < 0 then
    redis.call('EXPIRE', mk, tonumber(ARGV[2]))
  end
end

-- request credits given back move the rate state back (never before now)
local interval = 0
if rps > 0 and burst > 0 then
  interval = 1000000 / rps
end
local function rateState()
  local tat = tonumber(redis.call('GET', KEYS[3]) or '0')
  if tat < nowUS then
    tat = nowUS
  end
  return tat
end
local function setRate(tat)
  redis.call('SET', KEYS[3], string.format('%.0f', tat), 'PX', math.ceil((tat - nowUS) / 1000) + 1000)
end
local backCredits = tonumber(ARGV[7])
if interval > 0 and edge ~= '' and backCredits > 0 then
  setRate(math.max(nowUS, rateState() - backCredits * interval))
end

if rec[5] ~= '1' then
  save()
  return {2, id, prefix, user, plan, 0, used, 0, 0, 0, 0, 0, 0, 0, 0, 0, leased, lost}
end
if limit == nil then
  save()
  return {4, id, prefix, user, plan, 0, used, 0, 0, 0, 0, 0, 0, 0, 0, 0, leased, lost}
end

-- 3. the request: its rate (GCRA, in microseconds), then the allowance; a refused request charges nothing
local rlRemaining, rlReset = 0, 0
local tat = nowUS
if interval > 0 then
  tat = rateState()
  if charge then
    local newTat = tat + interval
    local ahead = newTat - nowUS
    local allowance = burst * interval
    if ahead > allowance then
      save()
      return {5, id, prefix, user, plan, limit, used, 0, 0, burst, 0, math.ceil((tat - nowUS) / 1000),
        math.ceil((ahead - allowance) / 1000), 0, 0, 0, leased, lost}
    end
    tat = newTat
    setRate(tat)
  end
  rlRemaining = math.floor((burst * interval - (tat - nowUS)) / interval)
  rlReset = math.ceil((tat - nowUS) / 1000)
end
local overage = 0
if charge then
  if limit >= 0 and used + leased + cost > limit then
    if hard then
      save()
      return {3, id, prefix, user, plan, limit, used, 0, 0, burst, rlRemaining, rlReset, 0, 0, 0, 0, leased, lost}
    end
    overage = math.min(cost, used + leased + cost - limit)
  end
  if cost > 0 then
    used = used + cost
    written = true
  end
else
  cost = 0
end

-- 4. a lease for the edge: within the allowance, a share of what no edge holds (a quarter per holder,
-- so a small remainder is never stranded on one edge: below the smallest lease, requests are charged
-- exactly); past it, on a plan with overage, as much as asked.
local grant, kind, credits = 0, 0, 0
if edge ~= '' then
  local want, unit = tonumber(ARGV[8]), math.max(cost, 1)
  if want > 0 then
    if limit < 0 then
      grant = want
    else
      local pool = limit - used - leased
      if pool > 0 then
        holders = holders + 1 -- this edge
        grant = math.min(want, math.floor(pool / (4 * holders)))
        if grant < tonumber(ARGV[10]) then
          grant = 0
        end
      elseif not hard then
        grant = want
        kind = 1
      end
    end
    grant = grant - grant % unit
    if grant > 0 then
      own = own + grant
      leased = leased + grant
      written = true
    end
  end
  local wantCredits = tonumber(ARGV[9])
  if interval == 0 then
    credits = -1
  elseif wantCredits > 0 then
    credits = math.min(wantCredits, math.floor((burst * interval - (tat - nowUS)) / interval))
    if credits > 0 then
      -- rl_remaining stays what the edge may send now: the credits it holds are part of it
      tat = tat + credits * interval
      setRate(tat)
    else
      credits = 0
    end
  end
  if own > 0 then
    -- a settled lease lives on for another lifetime
    written = true
  end
end
save()
return {0, id, prefix, user, plan, limit, used, cost, overage, burst, rlRemaining, rlReset, 0, grant, kind,
  credits, leased, lost}
