import type { Cluster, Redis } from 'ioredis';

// The Lua scripts of the Redis store, registered with ioredis `defineCommand`
// (EVALSHA, falling back to EVAL once per connection). Each touches only the
// keys of one run (one hash tag, so one Cluster slot), given in KEYS.

/**
 * Pushes ARGV[first..last] onto a list in chunks: `unpack` of thousands of
 * values at once would overflow Lua's C stack.
 */
const PUSH = `
local function push(key, first, last)
  local i = first
  while i <= last do
    local j = math.min(i + 499, last)
    redis.call('RPUSH', key, unpack(ARGV, i, j))
    i = j + 1
  end
end
`;

/** Approximate length the event stream is trimmed to (XADD MAXLEN ~). */
export const STREAM_MAXLEN = 100_000;

/**
 * Adds a member to an index and keeps the index's key alive at least `ttl` ms from now (0: for good), the TTL of
 * the keys the member stands for: the key's TTL only grows, and a key without one (a member kept for good is or was
 * there, or it was written before index TTLs) keeps none, so the index never expires before a member's keys do.
 */
const KEEP_INDEXED = `
local function indexMember(key, score, member, ttl)
  local left = redis.call('PTTL', key)
  redis.call('ZADD', key, score, member)
  if ttl == 0 then
    redis.call('PERSIST', key)
  elseif left == -2 or (left >= 0 and left < ttl) then
    redis.call('PEXPIRE', key, string.format('%.17g', ttl))
  end
end
`;

/**
 * Applies the diff between two runs' index entries (JSON arrays of [key
 * relative to the prefix, score, member, and for an index kept alive by its
 * members the TTL of the run's keys]), as the store's `applyIndex` does from
 * outside: ZREM what left, ZADD what joined or moved, and every entry with a
 * TTL again (its run's keys may now live longer). Scores are whole
 * milliseconds; %.17g writes any double exactly.
 */
const APPLY_INDEX = `${KEEP_INDEXED}
local function applyIndex(prefix, previousText, nextText)
  local before = previousText == '' and {} or cjson.decode(previousText)
  local after = nextText == '' and {} or cjson.decode(nextText)
  local function id(entry) return entry[1] .. '\\0' .. entry[3] end
  local function score(entry) return string.format('%.17g', entry[2]) end
  local staying, unchanged = {}, {}
  for _, entry in ipairs(after) do staying[id(entry)] = true end
  for _, entry in ipairs(before) do unchanged[id(entry) .. '\\0' .. score(entry)] = true end
  for _, entry in ipairs(before) do
    if not staying[id(entry)] then redis.call('ZREM', prefix .. entry[1], entry[3]) end
  end
  for _, entry in ipairs(after) do
    if type(entry[4]) == 'number' then
      indexMember(prefix .. entry[1], score(entry), entry[3], entry[4])
    elseif not unchanged[id(entry) .. '\\0' .. score(entry)] then
      redis.call('ZADD', prefix .. entry[1], score(entry), entry[3])
    end
  end
end
`;

/**
 * Creates a run or commits a new version of it, atomically.
 *
 * KEYS: head, msgs, audit, outbox.
 * ARGV: 1 mode ('create' | expected version), 2 new version, 3 messages the
 * caller believes are stored, 4 audit entries it believes are stored, 5 head,
 * 6 index entries, 7 TTL in ms (0: no expiry), 8 the commit's id (the
 * version, then a random id: sorts in commit order, unique per commit; also
 * its outbox field), 9 the commit's time and events (the outbox value is
 * that, the new index and the previous one, one a line), 10 how many events
 * the commit has, 11 new messages count, 12 new audit entries count,
 * 13 'inline' or 'outbox', 14 the full key prefix (inline only), 15 the id
 * of the commit the caller believes is the run's latest ('' when it does not
 * know), 16 the resume-job stream to add `{ runId }` to once the commit
 * lands ('' for none; inline only), 17 the run id, 18 to 21 a remembered
 * key to replace once the commit lands (inline only; '' for none), the value
 * it must hold ('' for a claim: it must be absent or hold the claim's own
 * value, checked before anything is written, and a key held by another
 * value stops the commit), its new value and TTL in ms,
 * 22.. the new messages,
 * then the new audit entries, then (inline only) each event's type, run id
 * and JSON.
 *
 * Inline (one server, where every key is reachable from one script): the
 * script also adds the events to the stream, applies the index diff and
 * queues the resume job (ARGV[16]) and replaces the remembered key (ARGV[18]) itself, so a commit is one round trip and
 * leaves no outbox entry. Outbox
 * (a Cluster, whose indexes and stream live in other slots): the events and
 * the index diff wait in the run's outbox for the caller to apply.
 *
 * The head keeps the ids of the run's last 8 commits (field 'c', latest
 * first), so a command resent after its reply was lost (ioredis resends what
 * was in flight when a connection drops) is recognised as the commit that
 * already landed instead of conflicting with itself.
 *
 * Replies: {1, previous index entries (when the outbox entry was written,
 * else ''), 1 if the outbox entry was written, 1 if the remembered key was replaced}
 * on success; {3, its outbox entry or nil} when this very commit had already
 * landed; {4, what the key holds} when a claim's key (ARGV[19] '') is held:
 * nothing written; {0, stored version or -1 when there is no run} on a version
 * conflict (or a taken id on create, or a latest commit other than ARGV[15]);
 * {2, stored version, stored messages, stored audit entries} when the version
 * matches but the counts do not (the caller then resends with the right tail).
 */
export const WRITE_RUN = `${PUSH}${APPLY_INDEX}
local head, msgs, audit, outbox = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local commit = ARGV[8]
local stored = redis.call('HMGET', head, 'v', 'x', 'c')
local recent = stored[3] or ''
if stored[1] and string.find(' ' .. recent .. ' ', ' ' .. commit .. ' ', 1, true) then
  return {3, redis.call('HGET', outbox, commit)}
end
if ARGV[18] ~= '' and ARGV[19] == '' then
  local held = redis.call('GET', ARGV[18])
  if held and held ~= ARGV[20] and string.sub(held, 1, 9) ~= '\\0dropped:' then return {4, held} end
end
local previous = ''
if ARGV[1] == 'create' then
  if stored[1] then return {0, tonumber(stored[1])} end
  redis.call('DEL', msgs, audit, outbox)
else
  if not stored[1] then return {0, -1} end
  local version = tonumber(stored[1])
  if version ~= tonumber(ARGV[1]) then return {0, version} end
  if ARGV[15] ~= '' and recent ~= '' and string.match(recent, '%S+') ~= ARGV[15] then return {0, version} end
  local storedMessages = redis.call('LLEN', msgs)
  local storedAudit = redis.call('LLEN', audit)
  if storedMessages ~= tonumber(ARGV[3]) or storedAudit ~= tonumber(ARGV[4]) then
    return {2, version, storedMessages, storedAudit}
  end
  previous = stored[2] or ''
end
local kept = {commit}
for id in string.gmatch(recent, '%S+') do
  if #kept >= 8 then break end
  kept[#kept + 1] = id
end
redis.call('HSET', head, 'v', ARGV[2], 'h', ARGV[5], 'x', ARGV[6], 'c', table.concat(kept, ' '))
local newMessages, newAudit, events = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[10])
push(msgs, 22, 21 + newMessages)
push(audit, 22 + newMessages, 21 + newMessages + newAudit)
local outboxWritten, replaced = 0, 0
if ARGV[13] == 'inline' then
  if previous ~= ARGV[6] then applyIndex(ARGV[14], previous, ARGV[6]) end
  local first = 22 + newMessages + newAudit
  for i = first, first + 3 * (events - 1), 3 do
    redis.call('XADD', ARGV[14] .. 'events', 'MAXLEN', '~', ${STREAM_MAXLEN}, '*', 'type', ARGV[i], 'runId', ARGV[i + 1], 'event', ARGV[i + 2])
  end
  if ARGV[16] ~= '' then redis.call('XADD', ARGV[16], '*', 'runId', ARGV[17]) end
  if ARGV[18] ~= '' and (ARGV[19] == '' or redis.call('GET', ARGV[18]) == ARGV[19]) then
    redis.call('SET', ARGV[18], ARGV[20], 'PX', ARGV[21])
    replaced = 1
  end
elseif events > 0 or previous ~= ARGV[6] then
  redis.call('HSET', outbox, commit, ARGV[9] .. '\\n' .. ARGV[6] .. '\\n' .. previous)
  outboxWritten = 1
end
local ttl = tonumber(ARGV[7])
for i = 1, 4 do
  if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
return {1, outboxWritten == 1 and previous or '', outboxWritten, replaced}
`;

/**
 * Reads a run in one consistent step. KEYS: head, msgs, audit.
 * Reply: nil, or {version, head, messages[], audit[], latest commit id or ''}.
 */
export const LOAD_RUN = `
local stored = redis.call('HMGET', KEYS[1], 'v', 'h', 'c')
if not stored[1] then return false end
return {stored[1], stored[2], redis.call('LRANGE', KEYS[2], 0, -1), redis.call('LRANGE', KEYS[3], 0, -1), string.match(stored[3] or '', '%S+') or ''}
`;

/** Deletes a run. KEYS: head, msgs, audit, outbox. Reply: its index entries, or nil. */
export const DELETE_RUN = `
local previous = redis.call('HGET', KEYS[1], 'x')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return previous
`;

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
 * `indexMember` on its own, for an index kept alive by its members (a session's pending approvals on a Cluster or
 * with the outbox, a session's or an agent's grants). KEYS: the index. ARGV: score, member, TTL ms ('0': for good).
 * Reply: 1. A resend does it again, which changes nothing but the TTL (extended by the time between).
 */
export const INDEX_MEMBER = `${KEEP_INDEXED}
indexMember(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]))
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

type Reply = Promise<unknown>;

/** The commands `registerScripts` adds to a connection. */
export interface ScriptCommands {
  countersignWriteRun(head: string, msgs: string, audit: string, outbox: string, ...argv: (string | number)[]): Reply;
  countersignLoadRun(head: string, msgs: string, audit: string): Reply;
  countersignDeleteRun(head: string, msgs: string, audit: string, outbox: string): Reply;
  countersignRemember(key: string, value: string, ttlMs: number): Reply;
  countersignReplaceRemembered(key: string, expected: string, set: '1' | '0', value: string, ttlMs: number, callId: string): Reply;
  countersignIndexMember(index: string, score: number, member: string, ttlMs: number): Reply;
  countersignSetRuleEnabled(rules: string, id: string, expected: string, value: string): Reply;
  countersignPutGrant(grant: string, json: string, ttlMs: string, token: string, ...uses: string[]): Reply;
  countersignConsumeGrant(grant: string, now: string, field: string, receipt: string, seenUsed: string): Reply;
  countersignReadGrant(grant: string): Reply;
  countersignRevokeGrant(grant: string, token: string): Reply;
}

/** Every script, by the command `registerScripts` defines for it (the lost-reply test has a case for each). */
export const SCRIPT_DEFINITIONS: Readonly<Record<keyof ScriptCommands, { readonly lua: string; readonly numberOfKeys: number; readonly readOnly?: boolean }>> = {
  countersignWriteRun: { lua: WRITE_RUN, numberOfKeys: 4 },
  countersignLoadRun: { lua: LOAD_RUN, numberOfKeys: 3, readOnly: true },
  countersignDeleteRun: { lua: DELETE_RUN, numberOfKeys: 4 },
  countersignRemember: { lua: REMEMBER, numberOfKeys: 1 },
  countersignReplaceRemembered: { lua: REPLACE_REMEMBERED, numberOfKeys: 1 },
  countersignIndexMember: { lua: INDEX_MEMBER, numberOfKeys: 1 },
  countersignSetRuleEnabled: { lua: SET_RULE_ENABLED, numberOfKeys: 1 },
  countersignPutGrant: { lua: PUT_GRANT, numberOfKeys: 1 },
  countersignConsumeGrant: { lua: CONSUME_GRANT, numberOfKeys: 1 },
  countersignReadGrant: { lua: READ_GRANT, numberOfKeys: 1, readOnly: true },
  countersignRevokeGrant: { lua: REVOKE_GRANT, numberOfKeys: 1 },
};

/** Defines the scripts on a connection once (every store sharing it reuses them) and returns it typed. */
export function registerScripts(redis: Redis | Cluster): ScriptCommands {
  const target = redis as unknown as Record<string, unknown>;
  for (const [name, definition] of Object.entries(SCRIPT_DEFINITIONS)) {
    if (typeof target[name] !== 'function') redis.defineCommand(name, definition);
  }
  return redis as unknown as ScriptCommands;
}
