-- Extends (ARGV[2] > 0, milliseconds) or releases (ARGV[2] = 0) the rebuild lock, if ARGV[1] still holds it.
-- KEYS[1]: the lock. Returns 1 when ARGV[1] held it.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return 1
