// The index scripts: add a member to an index kept alive by its members, and apply the diff between two runs' index entries.

/**
 * Adds a member to an index and keeps the index's key alive at least `ttl` ms from now (0: for good), the TTL of
 * the keys the member stands for: the key's TTL only grows, and a key without one (a member kept for good is or was
 * there, or it was written before index TTLs) keeps none, so the index never expires before a member's keys do.
 */
export const KEEP_INDEXED = `
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
export const APPLY_INDEX = `${KEEP_INDEXED}
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
 * `indexMember` on its own, for an index kept alive by its members (a session's pending approvals on a Cluster or
 * with the outbox, a session's or an agent's grants). KEYS: the index. ARGV: score, member, TTL ms ('0': for good).
 * Reply: 1. A resend does it again, which changes nothing but the TTL (extended by the time between).
 */
export const INDEX_MEMBER = `${KEEP_INDEXED}
indexMember(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]))
return 1
`;
