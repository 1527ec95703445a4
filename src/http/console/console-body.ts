import { z } from 'zod';
import type { Context } from 'hono';
import type { Answer, ApprovalResponse } from '../../index.js';
import { parseJsonBody, parseWith, readRawBody } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';

const id = z.string().min(1).max(256);
const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .optional()
    .transform((text) => (text === undefined || text.trim() === '' ? undefined : text));

/** A whole number from a form field or JSON, empty meaning not given. */
const optionalCount = (max: number) =>
  z.preprocess(
    (value) => (value === '' || value === null ? undefined : value),
    z.coerce.number().int().min(1).max(max).optional(),
  );

/**
 * A console decision: the card's form (or the script's JSON). `run` approves the tool for the rest of the run;
 * `session` for later runs of the run's session, bounded by `ttlMinutes` and `uses` when given (a grant); `dismiss`
 * closes the request without a decision (`dismissed: true`, as `countersign dismiss` sends).
 */
export const consoleDecision = z.object({
  csrf: z.string().max(100).optional(),
  runId: id,
  approvalId: id,
  decision: z.enum(['approve', 'run', 'session', 'deny', 'dismiss', 'answer']),
  /** A session grant ends after this many minutes (at most a week). */
  ttlMinutes: optionalCount(7 * 24 * 60),
  /** A session grant covers this many later calls. */
  uses: optionalCount(1_000_000),
  reason: optionalText(4000),
  signature: z.string().max(512).optional(),
  /** Edited arguments (the script's editor; JSON only). */
  args: z.unknown().optional(),
  /** A question's form as typed: its `answer.<field>` pairs (a form post's, or the script's), read by `readAnswer`. */
  answerFields: z
    .array(z.tuple([z.string().max(80), z.string()]))
    .max(500)
    .optional(),
});

/**
 * The `ApprovalResponse` a console decision stands for, recorded as `reviewer` (never a name the page sends). Each
 * way of deciding the card offers maps here, in one place: a new one (a session scope, a bounded grant) is a value of
 * `decision` and a branch of this function.
 *
 * @example
 * const response = consoleResponse({ runId, approvalId, decision: 'run' }, 'alice'); // scope: 'run'
 * const grant = consoleResponse({ runId, approvalId, decision: 'session', ttlMinutes: 15, uses: 2 }, 'alice');
 * // scope: 'session', grant: { ttlMs: 900_000, uses: 2 }
 */
export function consoleResponse(
  fields: z.output<typeof consoleDecision>,
  reviewer: string,
  answer?: Answer,
): ApprovalResponse {
  const grant = {
    ...(fields.ttlMinutes === undefined ? {} : { ttlMs: fields.ttlMinutes * 60_000 }),
    ...(fields.uses === undefined ? {} : { uses: fields.uses }),
  };
  return {
    approvalId: fields.approvalId,
    approved: fields.decision !== 'deny' && fields.decision !== 'dismiss',
    ...(fields.decision === 'dismiss' ? { dismissed: true } : {}),
    approvedBy: reviewer,
    ...(fields.reason === undefined ? {} : { reason: fields.reason }),
    ...(fields.decision === 'run' ? { scope: 'run' as const } : {}),
    ...(fields.decision === 'session'
      ? { scope: 'session' as const, ...(Object.keys(grant).length === 0 ? {} : { grant }) }
      : {}),
    ...(fields.args === undefined ? {} : { args: fields.args }),
    ...(answer === undefined ? {} : { answer }),
    ...(fields.signature === undefined ? {} : { signature: fields.signature }),
  };
}

/**
 * Approve all / deny all of a run: the approvals the person saw (only these are decided; one that arrived since waits),
 * echoing their requests' signatures.
 */
export const consoleBlanket = z.object({
  csrf: z.string().max(100).optional(),
  runId: id,
  approvalIds: z.array(id).min(1).max(100),
  decision: z.enum(['approve', 'deny']),
  reason: optionalText(4000),
  signatures: z.array(z.string().min(1).max(512)).max(100).optional(),
});

/** Cancel run: an approved card's run, still running, cancelled by a token session (`runtime.cancel`). */
export const consoleCancel = z.object({
  csrf: z.string().max(100).optional(),
  runId: id,
  reason: optionalText(4000),
});

/** Sign-in: the API token and a name, or an inbox link. */
export const consoleSignIn = z.object({
  token: z.string().max(512).optional(),
  name: optionalText(128),
  inbox: optionalText(8000),
});

/** The fields of a form post that repeat (Approve all's `approvalIds` and `signatures`), read as lists. */
const LISTS = new Set(['approvalIds', 'signatures']);

/**
 * Reads a console write's body, a form post (the no-script path) or JSON (the script), within the body limit, and
 * validates it; also says whether the caller wants JSON back (the script) or a page (a form).
 *
 * @example
 * const { fields, json } = await readConsoleBody(c, consoleDecision, 64 * 1024);
 */
export async function readConsoleBody<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
  maxBodyBytes: number,
): Promise<{ readonly fields: z.output<S>; readonly json: boolean }> {
  const raw = await readRawBody(c.req.raw, maxBodyBytes);
  if (/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? ''))
    return { fields: parseJsonBody(schema, raw), json: true };
  const form = new URLSearchParams(raw);
  const value: Record<string, unknown> = {};
  for (const key of new Set(form.keys()))
    if (!key.startsWith('answer.')) value[key] = LISTS.has(key) ? form.getAll(key) : form.get(key);
  const answered = [...form].filter(([key]) => key.startsWith('answer.'));
  if (answered.length > 0) value['answerFields'] = answered;
  return { fields: parseWith(schema, value, 'body'), json: false };
}
