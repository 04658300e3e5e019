-- meter_refund: give back an exact charge (the request did not succeed).
--
-- KEYS[1]  period meter hash of the charge   shr:meter:{<sha256>}:<YYYYMM>
-- ARGV[1]  tokens charged
-- ARGV[2]  the plan's allowance when it has overage (no hard block); -1 otherwise
--
-- Returns the tokens used after the refund. Never goes below zero; the overage stays
-- max(0, used - allowance), as meter_charge keeps it.
local used = redis.call('HINCRBY', KEYS[1], 'used', -tonumber(ARGV[1]))
if used < 0 then
  redis.call('HSET', KEYS[1], 'used', 0)
  used = 0
end
local limit = tonumber(ARGV[2])
if limit >= 0 then
  redis.call('HSET', KEYS[1], 'overage', math.max(0, used - limit))
end
return used
