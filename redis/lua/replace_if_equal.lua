-- replace_if_equal: replace a string key's value only if it still holds the value the caller read
-- (a compare-and-set): writing a served body beside a record stored without one must not overwrite a
-- record written since it was read.
--
-- KEYS[1]  the key (shr:quote:{<sym>} or shr:result:{<sym>}:<ruleset>)
-- ARGV[1]  the value read
-- ARGV[2]  the new value
--
-- Returns 1 when replaced, 0 when the key holds something else (or nothing).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
