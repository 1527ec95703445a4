// What names a run: its id and, when its starter gave one, the session it belongs to; the same rules for both.
import { z } from 'zod';
import type { AgentSnapshot } from './types.js';

/** A run or session id: safe in a URL, a Redis key and a log line. */
export const idSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'use 1 to 128 letters, digits, "_", "-", "." or ":"');

/** The part of a run its signatures bind: a request or decision signed for one run and session is refused in another. */
export type RunIdentity = Pick<AgentSnapshot, 'runId' | 'sessionId'>;

/**
 * The identity as signed. A run without a session signs `{ runId }` exactly as before sessions existed, so
 * signatures already stored still verify; with one, the session is bound too.
 */
export function signedIdentity(run: RunIdentity): { readonly runId: string; readonly sessionId?: string } {
  return run.sessionId === undefined ? { runId: run.runId } : { runId: run.runId, sessionId: run.sessionId };
}
