-- run_put_item: store one symbol's outcome of a run once, and only while the run exists, so a worker
-- finishing a symbol after the run was deleted cannot recreate its results hash (which has no TTL).
--
-- KEYS[1]  run record hash   shr:run:{<id>}
-- KEYS[2]  run results hash  shr:run:{<id>}:items
-- ARGV[1]  symbol
-- ARGV[2]  outcome (JSON)
--
-- Returns 1 when written, 0 when the symbol was already written, -1 when the run does not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
return redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
