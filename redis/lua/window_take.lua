-- window_take: count one hit in each of several fixed-window buckets, all or none.
--
-- KEYS[i]  the buckets' counters   shr:window:{<group>}:<bucket>  (one hash tag: one slot, one script)
-- ARGV[1]  the window in milliseconds (set when a window's first hit creates its counter)
-- ARGV[1+i] the limit of bucket i (0: no limit)
--
-- Returns {refused, ms_left}: refused is 0 when every bucket was below its limit and each was counted,
-- else the index (1-based) of the first bucket at its limit, nothing counted, and ms_left the time until
-- that bucket's window ends.
local window = tonumber(ARGV[1])
for i = 1, #KEYS do
  local limit = tonumber(ARGV[1 + i])
  if limit > 0 then
    local n = tonumber(redis.call('GET', KEYS[i]) or '0')
    if n >= limit then
      local left = redis.call('PTTL', KEYS[i])
      if left < 0 then
        -- a counter without a lifetime (an interrupted first hit): give it one
        redis.call('PEXPIRE', KEYS[i], window)
        left = window
      end
      return {i, left}
    end
  end
end
for i = 1, #KEYS do
  if redis.call('INCR', KEYS[i]) == 1 or redis.call('PTTL', KEYS[i]) < 0 then
    redis.call('PEXPIRE', KEYS[i], window)
  end
end
return {0, 0}
