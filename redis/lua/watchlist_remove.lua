-- Remove a symbol from a watchlist. KEYS[1] the user's list, KEYS[2] the watchlist's symbols.
-- ARGV: id, symbol. Returns -2 no such watchlist, else how many were removed (0 or 1).
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return -2
end
return redis.call('ZREM', KEYS[2], ARGV[2])
