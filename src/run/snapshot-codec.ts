import { SuperJSON } from 'superjson';
import { SnapshotError } from '../errors.js';
import { deepFreeze } from './freeze.js';
import { isPlainJson } from './plain-json.js';
import type { Message } from './types.js';
import type { AgentSnapshot } from './agent-snapshot.js';
import { checkMessageList } from './check-messages.js';
import { compiled } from '../options.js';
import { headSchema } from './snapshot-schema.js';

/** The wire format versions `deserialize` reads. */
// 2: signatures cover the whole request and the whole decision (v1 ones are still read, see docs/decisions.md, "Signed decisions").
export const SUPPORTED_SCHEMA_VERSIONS: readonly number[] = [1, 2];
export const CURRENT_SCHEMA_VERSION = 2;

// A private instance: registrations users make on the global superjson cannot change our format.
const codec = new SuperJSON();

export type SnapshotHead = Omit<AgentSnapshot, 'messages'>;

/**
 * A lean check of the history: one pass over plain objects, no schema
 * machinery, because history is the part that grows.
 */
export function checkMessages(messages: unknown, pathPrefix = 'messages'): asserts messages is Message[] {
  checkMessageList(messages, pathPrefix, (path, what) => {
    throw new SnapshotError(`Invalid snapshot: ${path} ${what}.`, {
      path,
      supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
    });
  });
}

/** Checks the histories of the sub-agent runs a head keeps (on its delegate calls' records, and ended ones), at any depth. */
function checkChildHistories(head: Pick<SnapshotHead, 'toolCalls' | 'subRuns'>, prefix: string): void {
  head.toolCalls.forEach((record, index) => {
    if (record.child === undefined) return;
    const path = `${prefix}toolCalls[${index}].child`;
    checkMessages(record.child.messages, `${path}.messages`);
    checkChildHistories(record.child, `${path}.`);
  });
  head.subRuns?.forEach((run, index) => {
    checkMessages(run.messages, `${prefix}subRuns[${index}].messages`);
    checkChildHistories(run, `${prefix}subRuns[${index}].`);
  });
}

/** Validates a snapshot head, naming the first offending field. */
export function parseHead(head: unknown): SnapshotHead {
  const parsed = compiled(headSchema).safeParse(head);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.join('.');
    throw new SnapshotError(`Invalid snapshot: ${path || '(head)'} ${issue.message}.`, {
      path,
      supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
      cause: parsed.error,
    });
  }
  const checked = parsed.data as SnapshotHead;
  checkChildHistories(checked, '');
  return checked;
}

/**
 * Encodes the head alone (superjson: carries Date, Map, Set, BigInt in tool
 * results and edits). A plain-JSON head, the usual case, is `{ json: head }`,
 * superjson's own output for it, without superjson's walk.
 */
export function encodeHead(snapshot: AgentSnapshot | SnapshotHead): unknown {
  const head = 'messages' in snapshot ? withoutMessages(snapshot) : snapshot;
  return isPlainJson(head) ? { json: head } : codec.serialize(head);
}

function withoutMessages({ messages: _messages, ...head }: AgentSnapshot): SnapshotHead {
  return head;
}

/**
 * Decodes and validates a head. `owned`: the caller parsed `encoded` itself and
 * nobody else holds it, so without `meta` (where superjson would only
 * deep-copy `json`) it is validated as it is.
 */
export function decodeHead(encoded: unknown, owned = false): SnapshotHead {
  try {
    const { json, meta } = (owned && typeof encoded === 'object' && encoded !== null ? encoded : {}) as {
      json?: unknown;
      meta?: unknown;
    };
    if (meta === undefined && json !== undefined) return parseHead(json);
    return parseHead(codec.deserialize(encoded as Parameters<typeof codec.deserialize>[0]));
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError('Invalid snapshot: the head cannot be decoded.', {
      path: 'head',
      supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
      cause: error,
    });
  }
}

/**
 * Turns a snapshot into a string that can be stored anywhere. The history
 * stays plain JSON; only the small head goes through superjson.
 *
 * @example
 * await redis.set(`paused:${snap.runId}`, serialize(snap));
 */
export function serialize(snapshot: AgentSnapshot): string {
  return JSON.stringify({
    $schemaVersion: CURRENT_SCHEMA_VERSION,
    head: encodeHead(snapshot),
    messages: snapshot.messages,
  });
}

/**
 * Why `version` is refused, told by what it is: absent or not a version number, the text is not something
 * serialize() wrote (a snapshot turned to JSON another way says so); a higher number is a newer countersign's.
 */
function versionRefusal(version: unknown, envelope: Record<string, unknown>): string {
  const reads = `this countersign reads versions ${SUPPORTED_SCHEMA_VERSIONS.join(', ')}`;
  if (typeof version === 'number' && Number.isInteger(version) && version > CURRENT_SCHEMA_VERSION) {
    return `Unsupported snapshot $schemaVersion ${version}: it was written by a newer countersign, and ${reads}. Upgrade countersign to read it.`;
  }
  const what =
    version === undefined
      ? 'it has no $schemaVersion'
      : `its $schemaVersion ${JSON.stringify(version)} is not one any countersign wrote`;
  const hint =
    'runId' in envelope && 'status' in envelope
      ? 'It looks like a snapshot turned to JSON another way (JSON.stringify?): store serialize(snapshot), and read it back with deserialize.'
      : 'Pass the string serialize() returned.';
  return `Invalid snapshot: this is not a serialized countersign snapshot (${what}; ${reads}). ${hint}`;
}

/**
 * Reads a serialized snapshot back: checks `$schemaVersion`, validates every
 * field, and returns a deeply frozen snapshot. Throws `SnapshotError` naming
 * the field at fault and the versions it reads.
 *
 * @example
 * const snap = deserialize(await redis.get(`paused:${runId}`));
 * const next = withApprovalResponse(snap, { approvalId, approved: true }, { agent });
 */
export function deserialize(text: string | unknown): AgentSnapshot {
  let envelope: unknown = text;
  if (typeof text === 'string') {
    try {
      envelope = JSON.parse(text);
    } catch (error) {
      throw new SnapshotError('Invalid snapshot: not JSON. Pass the string serialize() returned.', {
        supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
        cause: error,
      });
    }
  }
  if (typeof envelope !== 'object' || envelope === null) {
    throw new SnapshotError('Invalid snapshot: expected an object with $schemaVersion, head and messages.', {
      supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
    });
  }
  const { $schemaVersion: version, head, messages } = envelope as Record<string, unknown>;
  if (typeof version !== 'number' || !SUPPORTED_SCHEMA_VERSIONS.includes(version)) {
    throw new SnapshotError(versionRefusal(version, envelope as Record<string, unknown>), {
      path: '$schemaVersion',
      supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
    });
  }
  const decoded = decodeHead(head, typeof text === 'string');
  checkMessages(messages);
  return deepFreeze(Object.assign({}, decoded, { messages }) as AgentSnapshot);
}

/**
 * Makes sure an object handed to `execute` or `withApprovalResponse` is a
 * snapshot. Frozen snapshots came from countersign and are trusted; anything
 * else is validated in full.
 */
export function assertSnapshotShape(snapshot: AgentSnapshot): void {
  if (Object.isFrozen(snapshot)) return;
  parseHead(snapshot);
  checkMessages(snapshot.messages);
}
