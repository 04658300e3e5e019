-- Append a symbol to a watchlist. KEYS[1] the user's list, KEYS[2] the watchlist's symbols.
-- ARGV: id, max symbols, symbol. Returns -2 no such watchlist, -1 full, 0 already there, 1 added.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return -2
end
if redis.call('ZSCORE', KEYS[2], ARGV[3]) then
  return 0
end
local n = redis.call('ZCARD', KEYS[2])
if n >= tonumber(ARGV[2]) then
  return -1
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local pos = 0
if #last == 2 then
  pos = tonumber(last[2]) + 1
end
redis.call('ZADD', KEYS[2], pos, ARGV[3])
return 1
