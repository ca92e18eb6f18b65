-- Atomically takes up to ARGV[2] ids due by ARGV[1] from one shard of the time index.
-- KEYS[1]: the shard's sorted set. Returns { next due score or '', id, id, ... }: the shard's head after the pop
-- comes first, so the caller knows how long it may sleep.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #ids > 0 then
  redis.call('ZREM', KEYS[1], unpack(ids))
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
table.insert(ids, 1, head[2] or '')
return ids
