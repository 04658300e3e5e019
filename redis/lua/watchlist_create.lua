-- Create a watchlist unless the user has ARGV[1] already.
-- KEYS[1] the user's list (zset id -> created ms), KEYS[2] the watchlist's record (hash), KEYS[3] its
-- symbols (zset symbol -> position). ARGV: max, id, created ms, name, created_at, symbols...
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return -1
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[2], 'name', ARGV[4], 'created_at', ARGV[5])
for i = 6, #ARGV do
  redis.call('ZADD', KEYS[3], i - 6, ARGV[i])
end
return 1
