-- Delete a webhook endpoint of a user with its disabled state and health.
-- KEYS[1] the user's endpoints (zset), KEYS[2] every endpoint (hash), KEYS[3] disabled (hash id -> JSON),
-- KEYS[4] health (hash <id>:since, <id>:streak). ARGV: id. Returns 1, or 0 when the user has no such endpoint.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1] .. ':since', ARGV[1] .. ':streak')
return 1
