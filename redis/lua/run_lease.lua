-- run_lease: take or renew a worker's lease on a run (its heartbeat).
--
-- KEYS[1]  run record hash   shr:run:{<id>}
-- KEYS[2]  run lease         shr:run:{<id>}:lease
-- ARGV[1]  worker token
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  "acquire": take a free lease of an existing run; "renew": extend the lease if the token holds it
--
-- Returns 1 when the token holds the lease for ARGV[2] ms from now, 0 otherwise (held by another
-- token, expired and taken, or the run deleted: nothing is created for a deleted run).
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if ARGV[3] == 'acquire' then
  if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
  end
  return 0
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return 1
end
return 0
