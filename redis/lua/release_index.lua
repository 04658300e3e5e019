-- release_index: free an index's active-run claim (or a run's lease) only if the given run (or worker
-- token) holds it.
--
-- KEYS[1]  shr:runs:active:<index>  (or shr:run:{<id>}:lease)
-- ARGV[1]  run id (or worker token)
--
-- Returns 1 when released, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
