-- run_progress: record a run's current symbol and counts, only while the run exists (an HSET on a
-- deleted run would recreate a stub record).
--
-- KEYS[1]  run record hash   shr:run:{<id>}
-- ARGV[1]  current symbol
-- ARGV[2]  processed
-- ARGV[3]  errors
-- ARGV[4]  time (RFC 3339)
--
-- Returns 1 when written, 0 when the run does not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'current_symbol', ARGV[1], 'processed', ARGV[2], 'errors', ARGV[3], 'updated_at', ARGV[4])
return 1
