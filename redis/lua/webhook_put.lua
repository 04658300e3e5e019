-- Write a field of a webhook endpoint (its record with a new secret, or its disabled state) only if the
-- endpoint still exists: a deleted endpoint must not come back in part.
-- KEYS[1] every endpoint (hash id -> JSON), KEYS[2] the hash to write (KEYS[1] itself, or disabled).
-- ARGV: id, JSON. Returns 1, or 0 when the endpoint is gone.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
