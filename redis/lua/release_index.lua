-- release_index: free an index's active-run claim only if the given run holds it.
--
-- KEYS[1]  shr:runs:active:<index>
-- ARGV[1]  run id
--
-- Returns 1 when released, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
