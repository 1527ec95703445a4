// The run scripts of the Redis store: write (create or commit) a run, load it and delete it, each in one atomic step.
import { APPLY_INDEX } from './index-scripts.js';

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
