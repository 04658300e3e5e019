-- run_status: move a run to a new status only from one of the allowed current statuses, atomically,
-- so a worker finishing a run cannot overwrite a cancellation that happened a moment before.
--
-- KEYS[1]  run record hash   shr:run:{<id>}
-- ARGV[1]  new status
-- ARGV[2]  time (RFC 3339)
-- ARGV[3]  error message ("" for none)
-- ARGV[4..] allowed current statuses
--
-- Returns 1 when moved, 0 when the run is absent or in another status.
local cur = redis.call('HGET', KEYS[1], 'status')
if not cur then
  return 0
end
for i = 4, #ARGV do
  if cur == ARGV[i] then
    redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2])
    if ARGV[1] == 'running' then
      redis.call('HSETNX', KEYS[1], 'started_at', ARGV[2])
    elseif ARGV[1] == 'completed' or ARGV[1] == 'cancelled' or ARGV[1] == 'failed' then
      redis.call('HSET', KEYS[1], 'finished_at', ARGV[2])
    end
    if ARGV[3] ~= '' then
      redis.call('HSET', KEYS[1], 'error', ARGV[3])
    end
    return 1
  end
end
return 0
