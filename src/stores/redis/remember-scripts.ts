// Compare-and-set scripts on one key: remembered keys (set once, replaced or dropped) and a stored rule's value.

/**
 * What a remembered key dropped by REPLACE_REMEMBERED holds for its TTL: this prefix and the drop's own id, so a
 * resent drop knows it was its own. Every reader takes it for an absent key.
 */
export const DROPPED_PREFIX = '\0dropped:';

/**
 * SET PX unless the key holds a value (a dropped key's marker is none), else GET. KEYS: the key. ARGV: value, ttl
 * ms. Reply: nil when the key holds the value (stored now, or by this very command before its reply was lost and
 * ioredis resent it), else what was held.
 */
export const REMEMBER = `
local held = redis.call('GET', KEYS[1])
if held == false or string.sub(held, 1, 9) == '\\0dropped:' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
if held == ARGV[1] then return false end
return held
`;

/**
 * Compare-and-set of a remembered key. KEYS: the key. ARGV: expected value,
 * '1' to set or '0' to drop, new value, ttl ms, the call's own id. A drop
 * leaves DROPPED_PREFIX and that id for the TTL instead of deleting, so a
 * resend of this very call (its reply lost) finds its own work done, as a set
 * does by finding its new value. Reply: 1 when replaced (now or by this call
 * before), 0 when the key no longer holds the expected value.
 */
export const REPLACE_REMEMBERED = `
local held = redis.call('GET', KEYS[1])
local dropped = '\\0dropped:' .. ARGV[5]
if (ARGV[2] == '1' and held == ARGV[3]) or (ARGV[2] == '0' and held == dropped) then return 1 end
if held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2] == '1' and ARGV[3] or dropped, 'PX', ARGV[4])
return 1
`;

/**
 * Replaces a stored rule's value if it still holds what the caller read.
 * KEYS: the rules hash. ARGV: id, expected value, new value. Reply: 1 when
 * replaced, 0 when it changed (or was removed) since.
 */
export const SET_RULE_ENABLED = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`;
