-- Create a webhook endpoint unless its user has ARGV[1] endpoints already.
-- KEYS[1] the user's endpoints (zset id -> created ms), KEYS[2] every endpoint (hash id -> JSON).
-- ARGV: max, id, created ms, the endpoint's JSON. Returns 1, or -1 at the limit.
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return -1
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
return 1
