-- meter_refund: give back a charge (the request did not succeed).
--
-- KEYS[1]  period meter hash of the charge   shr:meter:{<sha256>}:<YYYYMM>
-- ARGV[1]  tokens charged
-- ARGV[2]  of which overage
--
-- Returns the tokens used after the refund. Never goes below zero.
local used = redis.call('HINCRBY', KEYS[1], 'used', -tonumber(ARGV[1]))
if used < 0 then
  redis.call('HSET', KEYS[1], 'used', 0)
  used = 0
end
local ov = tonumber(ARGV[2])
if ov > 0 then
  local left = redis.call('HINCRBY', KEYS[1], 'overage', -ov)
  if left < 0 then
    redis.call('HSET', KEYS[1], 'overage', 0)
  end
end
return used
