// Stream entries as Redis answers them (XREAD, XREADGROUP, XAUTOCLAIM, XPENDING), read into ids and fields.

/** An entry as read. */
export interface Entry {
  readonly id: string;
  /** Null when the entry was deleted from the stream while it was pending. */
  readonly fields: Readonly<Record<string, string>> | null;
}

/** An entry this consumer has read and not yet settled, with how many times it has been delivered. */
export interface HeldEntry {
  readonly id: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly deliveries: number;
}

/** A string or bytes as text; undefined for anything else. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return undefined;
}

function parseFields(raw: unknown): Record<string, string> | null {
  if (!Array.isArray(raw)) return null;
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = text(raw[i]);
    const value = text(raw[i + 1]);
    if (name !== undefined && value !== undefined) fields[name] = value;
  }
  return fields;
}

/** `[[id, [field, value, ...] | null], ...]` into entries. */
export function parseEntries(raw: unknown): Entry[] {
  if (!Array.isArray(raw)) return [];
  const entries: Entry[] = [];
  for (const item of raw) {
    if (!Array.isArray(item)) continue;
    const id = text(item[0]);
    if (id === undefined) continue;
    entries.push({ id, fields: parseFields(item[1]) });
  }
  return entries;
}

/**
 * The entries of one stream in an XREAD / XREADGROUP reply. RESP2 answers
 * `[[key, entries]]`; RESP3 with ioredis' default "legacy" mapping flattens the
 * map to `[key, entries]`; the "resp3" mapping gives `{ key: entries }`.
 */
export function entriesOfReadReply(reply: unknown): Entry[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    if (reply.length === 0) return [];
    if (Array.isArray(reply[0]))
      return reply.flatMap((pair: unknown) => (Array.isArray(pair) ? parseEntries(pair[1]) : []));
    const entries: Entry[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) entries.push(...parseEntries(reply[i + 1]));
    return entries;
  }
  if (reply instanceof Map) return [...reply.values()].flatMap((value) => parseEntries(value));
  if (typeof reply === 'object') return Object.values(reply).flatMap((value) => parseEntries(value));
  return [];
}

/** Orders stream ids (`ms-seq`) numerically. */
export function compareIds(a: string, b: string): number {
  const [aMs = 0n, aSeq = 0n] = a.split('-').map((part) => BigInt(part));
  const [bMs = 0n, bSeq = 0n] = b.split('-').map((part) => BigInt(part));
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  if (aSeq !== bSeq) return aSeq < bSeq ? -1 : 1;
  return 0;
}
