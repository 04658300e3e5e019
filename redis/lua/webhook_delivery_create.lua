-- Store a webhook delivery unless it is stored already, and keep the endpoint's list to the retention.
-- KEYS[1] the delivery (JSON), KEYS[2] the endpoint's deliveries (zset id -> created ms).
-- ARGV: id, created ms, retention ms, the delivery's JSON.
-- Returns "" when stored now, else the stored JSON (the caller queues it again if still pending).
local v = redis.call('GET', KEYS[1])
if v then
  return v
end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (tonumber(ARGV[2]) - tonumber(ARGV[3])))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return ''
