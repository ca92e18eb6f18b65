-- Reads the shared record of full rebuilds of the time index. A script always runs on the primary, never on a
-- replica that may lag behind. KEYS[1]: the record, a hash.
-- Returns { rebuilds started, highest number of a rebuild completed }.
local record = redis.call('HMGET', KEYS[1], 'started', 'completed')
return { tonumber(record[1]) or 0, tonumber(record[2]) or 0 }
