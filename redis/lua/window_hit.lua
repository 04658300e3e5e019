-- window_hit: count one hit of a bucket in a fixed window.
--
-- KEYS[1]  the bucket's counter   shr:window:{<bucket>}
-- ARGV[1]  the window in milliseconds (set when the window's first hit creates the counter)
--
-- Returns {count, ms_left}: the hits of the current window, this one included, and the time until the
-- window ends.
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  -- a counter without a lifetime (an interrupted first hit): give it one
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
  left = tonumber(ARGV[1])
end
return {n, left}
