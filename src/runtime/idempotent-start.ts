// A start is idempotent: a retry (after a 503 whose write did land, or a lost answer) names the run its first
// attempt made, by run id or by an idempotency key, and gets that run back instead of a conflict or a second run.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/** An idempotency key: any text a caller keeps per intent (a request id), up to 256 characters. */
export const idempotencyKeySchema = z.string().min(1, 'is empty').max(256, 'is longer than 256 characters');

/** The run id a start with idempotency key `key` gets: the same for every retry of it. */
export function runIdForKey(key: string): string {
  return `run_key_${createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, 32)}`;
}

const json = (value: unknown) => JSON.stringify(value ?? null);

/**
 * Whether the stored run `existing` was started as `created` (a new run built from a retried start) would be: same
 * agent, session, requester and origin, and its history opens with the same messages. What the run did since
 * (later messages, decisions) does not matter.
 */
export function sameStart(existing: AgentSnapshot, created: AgentSnapshot): boolean {
  return (
    existing.agentName === created.agentName &&
    existing.sessionId === created.sessionId &&
    existing.requestedBy === created.requestedBy &&
    json(existing.origin) === json(created.origin) &&
    existing.messages.length >= created.messages.length &&
    json(existing.messages.slice(0, created.messages.length)) === json(created.messages)
  );
}
