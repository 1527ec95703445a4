// The options of createApprovalApp, and their checks at the boundary (unknown keys refused, secrets' shapes).
import { z } from 'zod';
import type { RuleStore, ResumeMode } from '../index.js';
import { type ChannelRoute, optionsObject, answerOptionsShape } from '../kit/index.js';
import type { EventFeed } from './events-route.js';
import type { ApprovalAppErrorContext } from './routes/route-settings.js';

/**
 * Options of `createApprovalApp`. At least one of `bearerToken` and
 * `webhookSecret` is required (or `insecure: true`).
 *
 * @example
 * const options: ApprovalAppOptions = {
 *   bearerToken: [process.env.APPROVALS_TOKEN!, process.env.APPROVALS_TOKEN_OLD!],
 *   webhookSecret: process.env.SLACK_BRIDGE_SECRET!,
 *   maxBodyBytes: 32 * 1024,
 *   resumeTimeoutMs: 5_000,
 *   onError: (error, context) => report(error, context),
 * };
 */
export interface ApprovalAppOptions {
  /** Bearer token(s) for every route but links, health and the OpenAPI document. Several while you rotate. */
  readonly bearerToken?: string | readonly string[];
  /** `whsec_` secret(s) of Standard Webhooks senders allowed to write (start, ask, decide, batch, cancel). Several while you rotate. */
  readonly webhookSecret?: string | readonly string[];
  /**
   * With personal tokens on (`createRuntime({ personTokens })`), whether the shared `bearerToken` may still decide
   * (and sign in to the console under a typed name). Default false: decisions need a personal token (or a signed
   * webhook delivery, or the console signed in with a personal token), so every decision names who made it. Without
   * personal tokens the shared token decides as before.
   */
  readonly sharedTokenDecides?: boolean;
  /** Serve without any authentication. Refused unless said explicitly; for demos on loopback only. */
  readonly insecure?: boolean;
  /** Largest body accepted, in bytes; checked before anything reads the body. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /**
   * Where a decided (or started) run goes on (see `ResumeMode`): `'inline'` (default) here, before answering;
   * `'enqueue'` on a worker, through the runtime's `queue` (a thin or serverless front answers 202 as soon as the
   * decision is recorded and the run queued); `'record'` in another process that follows the run, such as the MCP
   * gateway (answered 202 as soon as the decision is recorded, nothing resumed here, no queue needed). `'enqueue'`
   * with a runtime that has no queue is refused here, at creation.
   */
  readonly resumeMode?: ResumeMode;
  /**
   * How long a decision (or a start), once recorded, waits for the run to pause or end before answering 202.
   * Default 10 s. Recording itself is always awaited: a decision that could not be written is a 503, never a 202.
   */
  readonly resumeTimeoutMs?: number;
  /** Epoch milliseconds, for webhook timestamps. Default `Date.now`; inject a fake one in tests. */
  readonly clock?: () => number;
  /** Where `GET /events` reads events. Default `runtime.subscribe` (this process's commits only). */
  readonly events?: EventFeed;
  /** Interval of the SSE heartbeat comments. Default 15 s. */
  readonly heartbeatMs?: number;
  /**
   * Channels' Fetch handlers (Slack's interactivity URL, Telegram's webhook, ...), each mounted at its `path`. They
   * check their own signatures, not `bearerToken` or `webhookSecret`. Two at one path, or one at a path of the app, are refused.
   */
  readonly channels?: readonly ChannelRoute[];
  /**
   * The stored rules your agents read (the `ruleStore` you gave `createAgent`): served as `GET/POST/DELETE /rules` and
   * on the console's rules page. Left out, neither exists.
   */
  readonly rules?: RuleStore;
  /** Unexpected errors (answered with a bare 500) and failures of runs that went on after a 202. */
  readonly onError?: (error: unknown, context: ApprovalAppErrorContext) => void;
}

const secretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must be a whsec_ secret (whsec_ then base64)')
  .refine(
    (secret) => Buffer.from(secret.slice(6), 'base64').length >= 16,
    'must hold at least 16 bytes of key after whsec_',
  );
const tokenSchema = z.string().regex(/^[\x21-\x7e]{16,512}$/, 'must be 16 to 512 visible ASCII characters');
export const optionsSchema = optionsObject({
  ...answerOptionsShape,
  bearerToken: z.union([tokenSchema, z.array(tokenSchema).min(1)]).optional(),
  webhookSecret: z.union([secretSchema, z.array(secretSchema).min(1)]).optional(),
  insecure: z.boolean().optional(),
  sharedTokenDecides: z.boolean().optional(),
  clock: z
    .custom<() => number>((value) => typeof value === 'function', 'must be a function returning epoch ms')
    .optional(),
  events: z
    .custom<EventFeed>(
      (value) => typeof (value as EventFeed | undefined)?.subscribe === 'function',
      'must have subscribe(listener)',
    )
    .optional(),
  heartbeatMs: z.number().int().min(10).optional(),
  channels: z
    .array(
      optionsObject({
        method: z.literal('POST', 'must be POST'),
        path: z
          .string()
          .regex(
            /^(?:\/[A-Za-z0-9._~-]+)+$/,
            'must be a literal path such as /slack/actions (no parameters, no trailing slash)',
          ),
        fetch: z.custom<ChannelRoute['fetch']>(
          (value) => typeof value === 'function',
          'must be a function (request, context?) => Promise<Response>',
        ),
      }),
    )
    .optional(),
  rules: z
    .custom<RuleStore>(
      (value) =>
        ['add', 'list', 'setEnabled', 'setShadow', 'remove'].every(
          (name) => typeof (value as Record<string, unknown> | undefined)?.[name] === 'function',
        ),
      'must be a RuleStore (add, list, setEnabled, setShadow, remove)',
    )
    .optional(),
  onError: z
    .custom<ApprovalAppOptions['onError']>((value) => typeof value === 'function', 'must be a function')
    .optional(),
});
