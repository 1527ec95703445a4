// The offline check of an exported audit against published keys: needs neither the runtime, the store nor any secret.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { personKey } from '../../decisions/authority/person-name.js';
import type { AuditEntry } from '../../run/types.js';
import { chainLink, receiptPayload, type ReceiptRun } from './receipt-payload.js';

/** A run's audit as exported (`RunView`, as `GET /runs/:runId` and `countersign show RUN --json` print it). */
export interface AuditExport extends ReceiptRun {
  readonly audit: readonly AuditEntry[];
}

/**
 * What can be wrong with one entry of an exported audit:
 * - `unsigned`: it has no receipt (decided by a process without `receipts`, or its receipt was taken off);
 * - `unknown_key`: its key id is not in the key set (a key never published, or one dropped from it);
 * - `bad_signature`: it was changed after it was signed, moved to another place or run, or signed by someone else;
 * - `broken_chain`: the entry before it is not the one it was signed after (an entry removed, inserted or reordered);
 * - `duplicate_vote`: one person's vote counted twice in a quorum decision.
 */
export type AuditProblemCode = 'unsigned' | 'unknown_key' | 'bad_signature' | 'broken_chain' | 'duplicate_vote';

/** One problem found in an exported audit: which run, which entry (its position), what, and in words. */
export interface AuditProblem {
  readonly runId: string;
  readonly index: number;
  readonly code: AuditProblemCode;
  readonly message: string;
}

/**
 * The result of `verifyAudit`: `ok` when every entry of every run verified.
 *
 * @example
 * const result: AuditVerification = verifyAudit(exported, jwks);
 * for (const problem of result.problems) console.log(problem.runId, problem.index, problem.code);
 */
export interface AuditVerification {
  readonly ok: boolean;
  readonly runs: number;
  readonly entries: number;
  readonly problems: readonly AuditProblem[];
}

const jwkSchema = z.looseObject({
  kty: z.string(),
  crv: z.string().optional(),
  x: z.string().optional(),
  kid: z.string(),
});
const keySetSchema = z.looseObject({ keys: z.array(jwkSchema).max(100) });
const entrySchema = z.looseObject({
  votes: z.array(z.looseObject({ by: z.string().optional() })).optional(),
  receipt: z.object({ keyId: z.string(), previous: z.string(), signature: z.string() }).optional(),
});
const runSchema = z.looseObject({
  runId: z.string(),
  agentName: z.string(),
  sessionId: z.string().optional(),
  audit: z.array(entrySchema),
});
const exportSchema = z.union([runSchema, z.array(runSchema)]);

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new ConfigError(
      `verifyAudit: ${what} is not in the expected shape (${z.prettifyError(result.error).replaceAll('\n', '; ')}).`,
    );
  return result.data;
}

/** The Ed25519 keys of a key set by id; other kinds of key are left out. */
function publicKeys(keySet: z.infer<typeof keySetSchema>): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const jwk of keySet.keys) {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || jwk.x === undefined) continue;
    try {
      keys.set(jwk.kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
    } catch {
      throw new ConfigError(`verifyAudit: key ${jwk.kid} of the key set is not a valid Ed25519 public key (its "x").`);
    }
  }
  return keys;
}

function duplicateVoter(entry: AuditEntry): string | undefined {
  const seen = new Set<string>();
  for (const vote of entry.votes ?? []) {
    if (vote.by === undefined) continue;
    const key = personKey(vote.by);
    if (seen.has(key)) return vote.by;
    seen.add(key);
  }
  return undefined;
}

function entryProblems(run: AuditExport, index: number, keys: Map<string, KeyObject>): AuditProblem[] {
  const entry = run.audit[index]!;
  const at = { runId: run.runId, index };
  const problems: AuditProblem[] = [];
  const voter = duplicateVoter(entry);
  if (voter !== undefined)
    problems.push({ ...at, code: 'duplicate_vote', message: `${voter} has two votes in one decision` });
  const { receipt } = entry;
  if (receipt === undefined) return [...problems, { ...at, code: 'unsigned', message: 'the entry has no receipt' }];
  const key = keys.get(receipt.keyId);
  if (key === undefined)
    return [...problems, { ...at, code: 'unknown_key', message: `key ${receipt.keyId} is not in the key set` }];
  if (receipt.previous !== chainLink(run.audit[index - 1]))
    problems.push({
      ...at,
      code: 'broken_chain',
      message:
        index === 0
          ? 'the first entry was signed after another one (entries before it were removed)'
          : 'the entry before it is not the one it was signed after (an entry removed, inserted or reordered)',
    });
  const payload = receiptPayload(run, index, receipt.previous, receipt.keyId, entry);
  if (!verify(null, payload, key, Buffer.from(receipt.signature, 'base64url')))
    problems.push({
      ...at,
      code: 'bad_signature',
      message: 'the signature does not match the entry (changed after signing, or moved from another run or place)',
    });
  return problems;
}

/**
 * Checks an exported audit (one run's `RunView`, or an array of them) against the receipt keys a runtime publishes
 * (`/.well-known/jwks.json`): each entry's Ed25519 signature, the chain of each run's entries (none removed,
 * inserted or reordered), and each quorum decision's votes (each person once). Offline: no secret, store or network.
 * An input of the wrong shape throws a `ConfigError`; everything found in a well-formed one is in `problems`.
 *
 * @example
 * const jwks = await (await fetch('https://approvals.example.com/.well-known/jwks.json')).json();
 * const result = verifyAudit(await (await fetch(`${base}/runs/${runId}`, { headers })).json(), jwks);
 * if (!result.ok) console.error(result.problems);
 */
export function verifyAudit(exported: unknown, keySet: unknown): AuditVerification {
  // Only the fields read are checked for shape; every other field is signed as it stands.
  const runs = parsed(exportSchema, exported, 'the audit') as unknown as AuditExport | AuditExport[];
  const keys = publicKeys(parsed(keySetSchema, keySet, 'the key set'));
  const list = Array.isArray(runs) ? runs : [runs];
  const problems: AuditProblem[] = [];
  let entries = 0;
  for (const run of list) {
    for (let index = 0; index < run.audit.length; index++) problems.push(...entryProblems(run, index, keys));
    entries += run.audit.length;
  }
  return { ok: problems.length === 0, runs: list.length, entries, problems };
}
