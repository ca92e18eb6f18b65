-- Adds task ids to one shard of the time index and announces a new head.
-- KEYS[1]: the shard's sorted set. ARGV[1]: the wake-up channel; ARGV[2..]: score, id, score, id, ...
-- A member that is already there takes the new score (a rescheduled or retried task).
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliest = nil
local args = {}
for i = 2, #ARGV, 2 do
  local score = tonumber(ARGV[i])
  if earliest == nil or score < earliest then earliest = score end
  args[#args + 1] = ARGV[i]
  args[#args + 1] = ARGV[i + 1]
end
redis.call('ZADD', KEYS[1], unpack(args))
if earliest ~= nil and (head[2] == nil or earliest < tonumber(head[2])) then
  redis.call('PUBLISH', ARGV[1], string.format('%d', earliest))
end
return 0
