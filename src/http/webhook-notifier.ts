import { createHash } from 'node:crypto';
import { z } from 'zod';
import { functionSchema } from '../machine/function-schema.js';
import { publicText } from '../machine/public-text.js';
import { httpUrlSchema } from '../machine/url-schema.js';
import type { Notifier } from '../ports/notifier.js';
import type { RunEvent } from '../machine/run-events.js';
import type { ApprovalRequest, AuditEntry, RunError } from '../machine/types.js';
import { signWebhook, webhookSignature } from './standard-webhooks.js';
import { parseOptions, optionsObject } from '../options.js';

/**
 * The event types a webhook notifier can send.
 *
 * @example
 * createWebhookNotifier({ url, secret, events: ['approval.requested', 'approval.resolved', 'run.failed'] satisfies WebhookEventType[] });
 */
export type WebhookEventType = 'approval.requested' | 'approval.resolved' | 'run.completed' | 'run.failed' | 'run.cancelled';

/**
 * Where an event happened: on every event's `data`.
 *
 * @example
 * const { runId, agentName }: WebhookRunRef = event.data;
 */
export interface WebhookRunRef {
  readonly runId: string;
  readonly agentName: string;
}

/**
 * The JSON body of one delivery. `timestamp` is when the notifier was told
 * (ISO 8601); times inside `data` are epoch milliseconds, as in the SDK's
 * own types, so a receiver can reuse `ApprovalRequest` and `AuditEntry`.
 * `approval.requested` carries the display copy of the arguments (secrets
 * redacted) and the request's `signature` to echo back with the decision.
 *
 * @example
 * // In the receiver, after verifying the signature:
 * const event = JSON.parse(body) as WebhookEvent;
 * if (event.type === 'approval.requested') await slack.ask(event.data.runId, event.data.approvalId, event.data.args);
 */
export type WebhookEvent =
  | { readonly type: 'approval.requested'; readonly timestamp: string; readonly data: WebhookRunRef & ApprovalRequest }
  | { readonly type: 'approval.resolved'; readonly timestamp: string; readonly data: WebhookRunRef & AuditEntry }
  | { readonly type: 'run.completed'; readonly timestamp: string; readonly data: WebhookRunRef & { readonly output: string } }
  | { readonly type: 'run.failed'; readonly timestamp: string; readonly data: WebhookRunRef & { readonly error: RunError } }
  | { readonly type: 'run.cancelled'; readonly timestamp: string; readonly data: WebhookRunRef & { readonly reason: string } };

/**
 * A delivery that failed its last try, kept so it can be inspected, stored or sent again.
 *
 * @example
 * for (const entry of notifier.deadLetters()) log.warn(`${entry.event.type} ${entry.webhookId}: ${entry.lastError} after ${entry.attempts} tries`);
 */
export interface WebhookDeadLetter {
  /** The `webhook-id` every try carried; a receiver that deduplicates on it sees a resend as a repeat. */
  readonly webhookId: string;
  readonly event: WebhookEvent;
  /** The exact body every try sent. (The URL is left out: many carry a secret, like a Slack webhook's path.) */
  readonly body: string;
  /** Tries made, at most `maxAttempts`. */
  readonly attempts: number;
  /** HTTP status of the last try, when the receiver answered at all. */
  readonly lastStatus?: number;
  /** Why the last try failed: `HTTP 500: <start of the body>`, `timed out after 10000 ms`, `ECONNREFUSED` …; any URL in it cut to its host (`hooks.example.com/…`). */
  readonly lastError: string;
  /** When the notifier gave up (ISO 8601). */
  readonly failedAt: string;
}

/**
 * Options of `createWebhookNotifier`; only `url` and `secret` are required.
 *
 * @example
 * const options: WebhookNotifierOptions = { url: 'https://bot.example.com/hooks', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', maxAttempts: 5 };
 */
export interface WebhookNotifierOptions {
  /** Where to POST; `http:` or `https:`. */
  readonly url: string;
  /**
   * A Standard Webhooks secret (`whsec_` then 24 to 64 bytes in base64), or
   * several while the receiver rotates keys: each delivery then carries one
   * `v1,` signature per secret.
   */
  readonly secret: string | readonly string[];
  /** Which events to send. Default `['approval.requested', 'approval.resolved']`. */
  readonly events?: readonly WebhookEventType[];
  /** Tries per event, the first included. Default 8. */
  readonly maxAttempts?: number;
  /** Wait before the second try; doubles each time, with jitter (50 to 100 % of it). Default 1000 ms. */
  readonly backoffMs?: number;
  /** Longest wait between tries, also the cap on a receiver's `Retry-After`. Default 300,000 ms (5 min). */
  readonly maxBackoffMs?: number;
  /** One try is abandoned (and counts as failed) after this long. Default 10,000 ms. */
  readonly timeoutMs?: number;
  /** How many deliveries may be on the wire at once. Events of one run are always sent in order, one at a time. Default 8. */
  readonly concurrency?: number;
  /** How many dead letters `deadLetters()` keeps, the oldest dropped first; `onDeadLetter` sees all of them. Default 1000. */
  readonly deadLetters?: number;
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Epoch milliseconds, for the `webhook-timestamp` header and the body's `timestamp`. Default `Date.now`. */
  readonly clock?: () => number;
  /** Waits between tries; inject one that returns at once in tests. Default `setTimeout`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Numbers in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
  /** Told of every delivery that failed its last try, e.g. to persist it; may return a promise (`flush()` waits for it). */
  readonly onDeadLetter?: (entry: WebhookDeadLetter) => void | Promise<void>;
  /** Failures of `onDeadLetter` itself, which have nowhere else to go. */
  readonly onError?: (error: unknown, context: { readonly operation: 'dead-letter'; readonly webhookId: string }) => void;
}

/**
 * A `Notifier` that POSTs signed events to one URL, retrying in the background.
 *
 * @example
 * const notifier: WebhookNotifier = createWebhookNotifier({ url, secret });
 * await notifier.flush(); // before the process exits
 */
export interface WebhookNotifier extends Notifier {
  /** Queues the events this notifier sends and returns at once; deliveries go on in the background. */
  publish(events: readonly RunEvent[]): Promise<void>;
  /** Resolves once every queued delivery has been delivered or dead-lettered (tests, graceful shutdown). */
  flush(): Promise<void>;
  /** The most recent dead letters, oldest first. */
  deadLetters(): readonly WebhookDeadLetter[];
  /** Queues a dead letter again, with its original `webhook-id` and body, and removes it from `deadLetters()`. */
  redeliver(entry: WebhookDeadLetter): void;
}

const EVENT_TYPES = ['approval.requested', 'approval.resolved', 'run.completed', 'run.failed', 'run.cancelled'] as const;
const SECRET_HINT = ' Use the whsec_ secret your receiver was given (whsec_ then 24 to 64 bytes in base64).';

const secretSchema = z
  .string('must be a string')
  .refine((value) => /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value), { message: `must be a whsec_ secret.${SECRET_HINT}`, abort: true })
  .refine(
    (value) => {
      const bytes = Buffer.from(value.slice('whsec_'.length), 'base64').length;
      return bytes >= 24 && bytes <= 64;
    },
    `must hold 24 to 64 bytes of key after whsec_.${SECRET_HINT}`,
  );

const optionsSchema = optionsObject(
  {
    url: httpUrlSchema({ example: 'https://hooks.example.com/countersign', credential: 'secret (every delivery is signed with it)' }),
    secret: z.union([secretSchema, z.array(secretSchema).min(1, 'is an empty list; pass at least one whsec_ secret')], `must be a whsec_ secret or a list of them.${SECRET_HINT}`),
    events: z.array(z.enum(EVENT_TYPES, `must be one of ${EVENT_TYPES.join(', ')}`)).min(1, 'is empty; leave it out to send approval.requested and approval.resolved').optional(),
    maxAttempts: z.number().int('must be a whole number').min(1).max(100).optional(),
    backoffMs: z.number().int('must be a whole number').min(0).max(86_400_000).optional(),
    maxBackoffMs: z.number().int('must be a whole number').min(0).max(86_400_000).optional(),
    timeoutMs: z.number().int('must be a whole number').min(1).max(600_000).optional(),
    concurrency: z.number().int('must be a whole number').min(1).max(1000).optional(),
    deadLetters: z.number().int('must be a whole number').min(0).optional(),
    fetch: functionSchema().optional(),
    clock: functionSchema().optional(),
    sleep: functionSchema().optional(),
    random: functionSchema().optional(),
    onDeadLetter: functionSchema().optional(),
    onError: functionSchema().optional(),
  },
  // An option misspelt (maxAttempt) would otherwise be ignored without a word.
);

/** Copies only the named fields that are set: what leaves the process is chosen field by field, never spread. */
function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const copy = {} as Pick<T, K>;
  for (const key of keys) if (source[key] !== undefined) copy[key] = source[key];
  return copy;
}

const REQUEST_FIELDS = [
  'approvalId', 'toolCallId', 'toolName', 'args', 'argsDigest', 'description', 'reason', 'requestedAt', 'expiresAt',
  'onExpire', 'connector', 'warnings', 'ruleId', 'approvers', 'signature', 'outcomeUnknown',
] as const satisfies readonly (keyof ApprovalRequest)[];
const AUDIT_FIELDS = [
  'approvalId', 'toolCallId', 'toolName', 'decision', 'source', 'scope', 'at', 'by', 'reason', 'ruleId', 'argsDigest',
  'editedArgsDigest', 'claimedAt', 'signature',
] as const satisfies readonly (keyof AuditEntry)[];
// A field added to ApprovalRequest or AuditEntry fails to compile here until someone decides whether it may leave the process.
type Unlisted<T, K extends readonly (keyof T)[]> = Exclude<keyof T, K[number]>;
const everyFieldDecided: [Unlisted<ApprovalRequest, typeof REQUEST_FIELDS> | Unlisted<AuditEntry, typeof AUDIT_FIELDS>] extends [never] ? true : never = true;
void everyFieldDecided;

/** The webhook event for a run event, with the identity its `webhook-id` derives from; undefined when none is sent. */
function toWebhookEvent(event: RunEvent, timestamp: string): { event: WebhookEvent; identity: string } | undefined {
  const ref: WebhookRunRef = { runId: event.runId, agentName: event.agentName };
  switch (event.type) {
    case 'approval-requested':
      return {
        event: { type: 'approval.requested', timestamp, data: { ...ref, ...(pick(event.request, REQUEST_FIELDS) as ApprovalRequest) } },
        identity: event.request.approvalId,
      };
    case 'approval-resolved':
      // Calls a rule or run memory decided without asking anyone are in the audit log, not news for an approver.
      if (event.entry.approvalId === undefined) return undefined;
      return {
        event: { type: 'approval.resolved', timestamp, data: { ...ref, ...(pick(event.entry, AUDIT_FIELDS) as AuditEntry) } },
        identity: `${event.entry.approvalId}:${event.entry.toolCallId}`,
      };
    case 'run-completed':
      return { event: { type: 'run.completed', timestamp, data: { ...ref, output: event.output } }, identity: '' };
    case 'run-failed':
      return { event: { type: 'run.failed', timestamp, data: { ...ref, error: { code: event.error.code, message: event.error.message } } }, identity: '' };
    case 'run-cancelled':
      return { event: { type: 'run.cancelled', timestamp, data: { ...ref, reason: event.reason } }, identity: '' };
    default:
      return undefined;
  }
}

/**
 * Derived from what the event is about, not from when it was sent: every
 * retry, and a second process announcing the same fact, carries the same id.
 */
function webhookIdOf(type: WebhookEventType, runId: string, identity: string): string {
  return `msg_${createHash('sha256').update(JSON.stringify([type, runId, identity])).digest('base64url').slice(0, 32)}`;
}

/** `Retry-After` as milliseconds from now (delta-seconds or an HTTP date), if it parses. */
function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The start of a response body, for the dead letter; never reads more than `limit` bytes. */
async function bodyStart(response: Response, limit = 512): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut short still tells what it managed to say.
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8').replace(/\s+/g, ' ').trim();
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `timed out after ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

type Attempt =
  | { readonly ok: true }
  | { readonly ok: false; readonly retry: boolean; readonly status?: number; readonly error: string; readonly waitMs?: number };

interface Delivery {
  readonly webhookId: string;
  readonly runId: string;
  readonly event: WebhookEvent;
  readonly body: string;
}

/**
 * A notifier that POSTs run events to a URL as Standard Webhooks: a JSON body
 * `{ type, timestamp, data }` with `webhook-id` (the same on every retry of
 * one event, so the receiver can deduplicate), `webhook-timestamp` and
 * `webhook-signature` headers. A try fails on a network error, a timeout or a
 * non-2xx answer and is retried with exponential backoff and jitter, except
 * for a 4xx other than 408 and 429 and for a redirect (not followed), which no
 * retry would change; `Retry-After` on 429 and 503 is honoured (up to
 * `maxBackoffMs`). After the last try the delivery becomes a dead
 * letter (`deadLetters()`, `onDeadLetter`).
 *
 * `publish` only queues, so a run never waits for a slow receiver; the events
 * of one run are delivered in order. Call `flush()` before the process exits.
 *
 * @example
 * const notifier = createWebhookNotifier({
 *   url: 'https://hooks.example.com/countersign',
 *   secret: process.env.COUNTERSIGN_WEBHOOK_SECRET!, // whsec_…
 *   onDeadLetter: (entry) => db.insert('dead_letters', entry),
 * });
 * const runtime = createRuntime({ agents: [agent], store, notifier });
 * process.on('SIGTERM', async () => { await notifier.flush(); process.exit(0); });
 */
export function createWebhookNotifier(options: WebhookNotifierOptions): WebhookNotifier {
  parseOptions(optionsSchema, options, 'createWebhookNotifier');
  const url = options.url;
  const secrets: readonly string[] = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const wanted = new Set<WebhookEventType>(options.events ?? ['approval.requested', 'approval.resolved']);
  const maxAttempts = options.maxAttempts ?? 8;
  const backoffMs = options.backoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const concurrency = options.concurrency ?? 8;
  const keepDeadLetters = options.deadLetters ?? 1000;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;

  const dead: WebhookDeadLetter[] = [];
  const inflight = new Set<Promise<void>>();
  /** The last queued delivery of each run: the next one of that run starts after it. */
  const tails = new Map<string, Promise<void>>();

  // A counting semaphore: deliveries waiting between tries hold no slot.
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    if (active < concurrency) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };

  const headersFor = (delivery: Delivery): Record<string, string> => {
    const signed = signWebhook(secrets[0]!, delivery.webhookId, Math.floor(clock() / 1000), delivery.body);
    const signatures = [signed['webhook-signature'], ...secrets.slice(1).map((secret) => webhookSignature(secret, signed['webhook-id'], signed['webhook-timestamp'], delivery.body))];
    return {
      ...signed,
      'webhook-signature': signatures.join(' '),
      'content-type': 'application/json',
      'user-agent': 'countersign-webhooks',
    };
  };

  const attempt = async (delivery: Delivery): Promise<Attempt> => {
    await acquire();
    try {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: headersFor(delivery),
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status >= 200 && response.status < 300) {
        response.body?.cancel().catch(() => {});
        return { ok: true };
      }
      const status = response.status;
      const text = await bodyStart(response);
      const hint = status >= 300 && status < 400 ? ` (redirect to ${response.headers.get('location') ?? 'nowhere'} not followed; configure the final URL)` : '';
      const error = `HTTP ${status}${hint}${text ? `: ${text}` : ''}`;
      // A redirect is not followed (the signature is for this URL's owner) and would only repeat; nor would a 4xx but 408 and 429.
      const retry = status >= 500 || status === 408 || status === 429;
      const wait = status === 429 || status === 503 ? retryAfterMs(response.headers.get('retry-after'), clock()) : undefined;
      return wait === undefined ? { ok: false, retry, status, error } : { ok: false, retry, status, error, waitMs: wait };
    } catch (error) {
      return { ok: false, retry: true, error: describeFailure(error, timeoutMs) };
    } finally {
      release();
    }
  };

  const backoff = (tries: number) => {
    const ceiling = Math.min(maxBackoffMs, backoffMs * 2 ** (tries - 1));
    return Math.round(ceiling * (0.5 + random() / 2));
  };

  const bury = async (delivery: Delivery, attempts: number, last: Attempt & { ok: false }) => {
    const entry: WebhookDeadLetter = {
      webhookId: delivery.webhookId,
      event: delivery.event,
      body: delivery.body,
      attempts,
      ...(last.status === undefined ? {} : { lastStatus: last.status }),
      // Dead letters are stored and logged: the receiver's answer and a redirect's target may quote a URL with a secret in it.
      lastError: publicText(last.error),
      failedAt: new Date(clock()).toISOString(),
    };
    if (keepDeadLetters > 0) {
      dead.push(entry);
      if (dead.length > keepDeadLetters) dead.splice(0, dead.length - keepDeadLetters);
    }
    try {
      await options.onDeadLetter?.(entry);
    } catch (error) {
      try {
        options.onError?.(error, { operation: 'dead-letter', webhookId: delivery.webhookId });
      } catch {
        // The error reporter's own failure has nowhere left to go.
      }
    }
  };

  const deliver = async (delivery: Delivery): Promise<void> => {
    for (let tries = 1; ; tries++) {
      const result = await attempt(delivery);
      if (result.ok) return;
      if (!result.retry || tries >= maxAttempts) return bury(delivery, tries, result);
      await sleep(result.waitMs === undefined ? backoff(tries) : Math.min(result.waitMs, maxBackoffMs));
    }
  };

  const enqueue = (delivery: Delivery) => {
    const previous = tails.get(delivery.runId) ?? Promise.resolve();
    // deliver never rejects; the catch keeps a broken injected sleep or fetch from wedging the run's queue.
    const task = previous.then(() => deliver(delivery)).catch(() => {});
    tails.set(delivery.runId, task);
    inflight.add(task);
    void task.then(() => {
      inflight.delete(task);
      if (tails.get(delivery.runId) === task) tails.delete(delivery.runId);
    });
  };

  return {
    async publish(events) {
      const timestamp = new Date(clock()).toISOString();
      for (const runEvent of events) {
        const built = toWebhookEvent(runEvent, timestamp);
        if (!built || !wanted.has(built.event.type)) continue;
        enqueue({
          webhookId: webhookIdOf(built.event.type, runEvent.runId, built.identity),
          runId: runEvent.runId,
          event: built.event,
          body: JSON.stringify(built.event),
        });
      }
    },
    async flush() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
    deadLetters() {
      return [...dead];
    },
    redeliver(entry) {
      const index = dead.findIndex((item) => item.webhookId === entry.webhookId);
      if (index !== -1) dead.splice(index, 1);
      enqueue({ webhookId: entry.webhookId, runId: entry.event.data.runId, event: entry.event, body: entry.body });
    },
  };
}
