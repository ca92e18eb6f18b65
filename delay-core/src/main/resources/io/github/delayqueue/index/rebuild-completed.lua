-- Records that the rebuild numbered ARGV[1] completed. KEYS[1]: the record, a hash.
-- A record that no longer knows that number was lost with Redis's data while the rebuild ran (its pages went
-- partly into the lost index), so the rebuild does not count. Returns 1 when it counted.
local record = redis.call('HMGET', KEYS[1], 'started', 'completed')
local number = tonumber(ARGV[1])
if (tonumber(record[1]) or 0) < number then
  return 0
end
if (tonumber(record[2]) or 0) < number then
  redis.call('HSET', KEYS[1], 'completed', ARGV[1])
end
return 1
