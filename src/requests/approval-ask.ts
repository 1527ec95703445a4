// What `runtime.requestApproval` takes: a call a caller outside the agent loop asks a person about, and the checks at
// the boundary.
import { z } from 'zod';
import { personNameSchema } from '../decisions/authority/person-name.js';
import { findShapeProblem, shapeIssue } from '../run/argument-shape.js';
import { originSchema } from '../run/origin-schema.js';
import { isPlainJson } from '../run/plain-json.js';
import { idSchema } from '../run/run-identity.js';
import { traceparentSchema } from '../run/traceparent.js';
import type { RunOrigin } from '../run/types.js';
import { idempotencyKeySchema } from '../runtime/idempotent-start.js';
import { optionsObject } from '../options.js';

/**
 * A call a caller outside the agent loop (a script, a workflow step, a coding agent's hook) asks a person about:
 * `runtime.requestApproval(ask)`. It goes through the runtime's request policy (`RuntimeOptions.requests`), grants,
 * quorum, reminders, channels, links, console and audit like a call from an agent's run.
 *
 * @example
 * const ask: ApprovalAsk = {
 *   tool: 'deploy',
 *   args: { service: 'billing', version: '2.4.1' },
 *   reason: 'Release train 48',
 *   approvers: ['alice', 'bob'],
 *   expiresInMs: 3_600_000,
 *   key: 'deploy-billing-2.4.1',
 * };
 */
export interface ApprovalAsk {
  /** The action's name, as rules match it (`deploy`, `Bash`, `mcp__github__merge`): letters, digits, `_`, `-`, `.`. */
  readonly tool: string;
  /** What it would do: a plain JSON object, shown to the person (secrets redacted) and bound by the decision. */
  readonly args: { readonly [key: string]: unknown };
  /** What the person reads; default: the tool's `description` in `requests.tools`, else its name. */
  readonly description?: string;
  /** Why it is asked. */
  readonly reason?: string;
  /** Who may decide, within whom the policy admits (never wider). */
  readonly approvers?: readonly string[];
  /** How many people must approve: at least what the policy asks (never fewer). */
  readonly approvals?: number;
  /** How long a person has, within the policy's `approvalTtlMs` (never longer). */
  readonly expiresInMs?: number;
  /** Requests of one session share session grants ("allow this for the session") and list together. */
  readonly sessionId?: string;
  /** Who asks: a quorum refuses their own vote. */
  readonly requestedBy?: string;
  /** Where it came from (a chat, a channel), so channels send it back there. */
  readonly origin?: RunOrigin;
  /** Makes the ask idempotent: the same key returns the same request; another ask with the key is refused. */
  readonly key?: string;
  /** The W3C `traceparent` of the caller's span: the request's spans (and its wait) continue that trace. */
  readonly traceparent?: string;
}

// Checked as given: a record schema's copy would drop a "__proto__" key before a check could see it.
const argsSchema = z.unknown().superRefine((args, context) => {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    context.addIssue({ code: 'custom', message: 'must be an object of the arguments, e.g. { path: "/tmp/x" }' });
    return;
  }
  const problem = findShapeProblem(args);
  if (problem) context.addIssue({ code: 'custom', path: problem.path.split('.'), message: shapeIssue(problem) });
  else if (!isPlainJson(args))
    context.addIssue({
      code: 'custom',
      message: 'must be plain JSON (strings, finite numbers, booleans, null, arrays and plain objects)',
    });
});

export const approvalAskSchema = optionsObject({
  tool: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'use 1 to 128 letters, digits, "_", "-" or "."'),
  args: argsSchema,
  description: z.string().min(1).max(4000).optional(),
  reason: z.string().max(4000).optional(),
  approvers: z
    .array(personNameSchema)
    .min(1, 'is empty; leave it out to let whoever the policy admits decide')
    .optional(),
  approvals: z.number().int().min(1).max(20).optional(),
  expiresInMs: z.number().int().min(1000, 'give a person at least 1000 ms').max(2_147_483_647).optional(),
  sessionId: idSchema.optional(),
  requestedBy: personNameSchema.optional(),
  origin: originSchema.optional(),
  key: idempotencyKeySchema.optional(),
  traceparent: traceparentSchema.optional(),
});

/**
 * A question a caller outside the agent loop asks a person (`runtime.requestInput`): the question, the form of the
 * answer as a zod object, and the same terms as an `ApprovalAsk`. The answer comes back from `handle.wait()`.
 *
 * @example
 * const ask: InputAsk<z.ZodObject<{ region: z.ZodEnum<{ eu: 'eu'; us: 'us' }> }>> = {
 *   question: 'Which region should the new cluster run in?',
 *   answer: z.object({ region: z.enum(['eu', 'us']) }),
 *   approvers: ['sre-lead'],
 * };
 */
export interface InputAsk<A extends z.ZodObject = z.ZodObject>
  extends Omit<ApprovalAsk, 'tool' | 'args' | 'description'> {
  /** What the person is asked (shown as the request's description). */
  readonly question: string;
  /**
   * The answer's form: a zod object whose fields are each `z.enum` (one of several), `z.array(z.enum)` (several),
   * `z.string()` (text; `.max(n)` over 200 for a long text), `z.number()`, `z.boolean()` or `z.iso.date()`, with
   * `.meta({ title })` or `.describe()` for what the person reads; at most 10 fields.
   */
  readonly answer: A;
  /** The name rules match the question by. Default `question`. */
  readonly tool?: string;
  /** Context shown with the question (a plain JSON object). */
  readonly args?: { readonly [key: string]: unknown };
}

export const inputAskSchema = approvalAskSchema.omit({ tool: true, args: true, description: true }).extend({
  question: z.string().min(1, 'is empty; say what the person is asked').max(4000),
  answer: z.custom<z.ZodObject>(
    (value) => value instanceof z.ZodObject,
    'must be a zod object, e.g. z.object({ region: z.enum(["eu", "us"]) })',
  ),
  tool: approvalAskSchema.shape.tool.optional(),
  args: argsSchema.optional(),
});
