// The grant scripts: write a grant's hash, spend a use, read it and revoke it, each in one atomic step.

/**
 * What the grant scripts share. A grant's hash holds `g` (its signed JSON), `r` (its revocation, once revoked),
 * and one field `u:<useKey>` per use spent (the signed receipt). Hashes written before use receipts may also hold
 * `exp`, `uses` (ignored: the limits are read from `g`), `used` (uses counted before receipts, added to the count)
 * and `revoked` ('1' also means revoked).
 */
const GRANT = `
local FIXED = {'g', 'exp', 'uses', 'used', 'revoked', 'r', 'w'}
local function decodeGrant(json)
  local ok, grant = pcall(cjson.decode, json)
  if ok and type(grant) == 'table' then return grant end
  return nil
end
local function isRevoked(key)
  return redis.call('HEXISTS', key, 'r') == 1 or redis.call('HGET', key, 'revoked') == '1'
end
local function usedOf(key)
  local count = redis.call('HLEN', key)
  for _, field in ipairs(FIXED) do count = count - redis.call('HEXISTS', key, field) end
  local legacy = tonumber(redis.call('HGET', key, 'used') or '0') or 0
  if legacy > 0 then count = count + legacy end
  return count
end
`;

/**
 * Writes a grant's hash unless the key exists (a live grant, or a revoked one, kept for good): ARGV json, ttlMs (''
 * for none), a token unique to this write (so its own resend answers 1), then pairs of a use's field and receipt.
 */
export const PUT_GRANT = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  -- The write this very call made (its reply lost, the command resent) is its own: written, not "written before".
  if redis.call('HGET', KEYS[1], 'w') == ARGV[3] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'g', ARGV[1], 'w', ARGV[3])
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`;

/**
 * Spends one use of a grant at ARGV[1] (the agent's clock) under the field ARGV[2], recording the receipt ARGV[3],
 * atomically: a limit is never passed under concurrency, and a field already there (the same call, resent or
 * evaluated again) is 'used' without spending. ARGV[4] is the fewest uses the caller has seen spent.
 */
export const CONSUME_GRANT = `${GRANT}
local json = redis.call('HGET', KEYS[1], 'g')
if not json then return 'missing' end
if isRevoked(KEYS[1]) then return 'revoked' end
local grant = decodeGrant(json)
if not grant then return 'missing' end
if type(grant.expiresAt) == 'number' and tonumber(ARGV[1]) >= grant.expiresAt then return 'expired' end
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then return 'used' end
if type(grant.uses) == 'number' and math.max(usedOf(KEYS[1]), tonumber(ARGV[4])) >= grant.uses then return 'used-up' end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 'used'
`;

/** Reads a grant in one step: {json, uses spent, 1 if revoked else 0}, or nil. */
export const READ_GRANT = `${GRANT}
local json = redis.call('HGET', KEYS[1], 'g')
if not json then return false end
return {json, usedOf(KEYS[1]), isRevoked(KEYS[1]) and 1 or 0}
`;

/**
 * Revokes a grant: records the revocation (the server's time, ms) in its hash, which is never removed by the library:
 * a grant with no expiry keeps its hash for good, so its decision never writes it again however long ago it was
 * revoked; one with an expiry keeps it until then (written again after that, it is expired). Returns 1 when it was
 * live.
 */
export const REVOKE_GRANT = `${GRANT}
local json = redis.call('HGET', KEYS[1], 'g')
if not json then return 0 end
local held = redis.call('HGET', KEYS[1], 'r')
-- The revocation this very call wrote (its reply lost, the command resent) is its own: revoked, not "no live grant".
if held and string.sub(held, -#ARGV[1] - 1) == ':' .. ARGV[1] then return 1 end
if isRevoked(KEYS[1]) then return 0 end
local time = redis.call('TIME')
redis.call('HSET', KEYS[1], 'r', tostring(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)) .. ':' .. ARGV[1])
local grant = decodeGrant(json)
if not grant or type(grant.expiresAt) ~= 'number' then redis.call('PERSIST', KEYS[1]) end
return 1
`;
