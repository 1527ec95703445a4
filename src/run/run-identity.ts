// What names a run: its id and, when its starter gave one, the session it belongs to; the same rules for both.
import { z } from 'zod';
import type { AgentSnapshot } from './agent-snapshot.js';

/** A run or session id: safe in a URL, a Redis key and a log line. */
export const idSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'use 1 to 128 letters, digits, "_", "-", "." or ":"');

/**
 * The part of a run its signatures bind: a request or decision signed for one run and session is refused in
 * another, and one signed for a run asked for by one person is refused if storage names another requester.
 */
export type RunIdentity = Pick<
  AgentSnapshot,
  'runId' | 'sessionId' | 'requestedBy' | 'parentRunId' | 'parentToolCallId'
>;

/**
 * The identity as signed. A run without a session or requester signs `{ runId }` exactly as before those existed,
 * so signatures already stored still verify; each one present is bound too, and a sub-agent's run binds the run
 * and the delegate call it answers, so its requests cannot be moved to another place in the chain.
 */
export function signedIdentity(run: RunIdentity): {
  readonly runId: string;
  readonly sessionId?: string;
  readonly requestedBy?: string;
  readonly parentRunId?: string;
  readonly parentToolCallId?: string;
} {
  return {
    runId: run.runId,
    ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
    ...(run.requestedBy === undefined ? {} : { requestedBy: run.requestedBy }),
    ...(run.parentRunId === undefined ? {} : { parentRunId: run.parentRunId }),
    ...(run.parentToolCallId === undefined ? {} : { parentToolCallId: run.parentToolCallId }),
  };
}
