import { z } from 'zod';
import type { Agent } from '../agent/agent-types.js';
import { functionSchema } from '../run/function-schema.js';
import { optionsObject } from '../options.js';
import { linkOptionsSchema, type ApprovalLinkOptions } from '../links/link-service.js';
import type { Notifier } from '../ports/notifier.js';
import type { OnceStore } from '../ports/once-store.js';
import type { ResumeQueue } from '../ports/resume-queue.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';
import { telemetryOption } from '../loop/telemetry-option.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { RequestOptions } from '../requests/request-agent.js';
import { receiptOptionsSchema, type ReceiptOptions } from './receipts/receipt-keys.js';
import type { PersonTokenStore } from '../ports/person-token-store.js';

/**
 * Options of `createRuntime`: the agents and where their runs live, plus what is optional.
 *
 * @example
 * const options: RuntimeOptions = { agents: [agent], store: createRedisStore({ redis }), links: { secret: process.env.LINK_SECRET! } };
 */
export interface RuntimeOptions {
  /**
   * The agents whose runs this runtime starts and resumes, found by their `name`. Default none: a runtime that only
   * serves `requestApproval` needs no agent of its own.
   */
  readonly agents?: readonly Agent[];
  /** Where runs live. Default: `createMemoryStore()` (this process only). */
  readonly store?: SnapshotStore;
  /**
   * Where webhook ids, spent links and chat button ids are kept once. Default: the store's own (`store.once`), else,
   * for a store only this process uses, one in memory. A shared store without one needs this option.
   */
  readonly once?: OnceStore;
  /**
   * Told of every event after the state it announces is committed, and of each `model-delta` of a streaming model
   * at once (it announces no state; best-effort, never replayed). Failures go to `onError`, never to the run.
   */
  readonly notifier?: Notifier;
  /** Where `respond(..., { mode: 'enqueue' })` puts resume jobs for workers. */
  readonly queue?: ResumeQueue;
  /** Epoch milliseconds; inject a fake one in tests. Default `Date.now`. */
  readonly clock?: () => number;
  /**
   * The secret one-click tokens (links, chat buttons, inboxes) are sealed with, and how long they work by default.
   * A runtime made with it is a `LinkedRuntime`; URLs are the app's to build (`approvalLinkUrl(baseUrl, token)`).
   */
  readonly links?: Omit<ApprovalLinkOptions, 'clock'>;
  /** How often a decision is retried after losing a compare-and-set race. Default 10. */
  readonly maxRetries?: number;
  /** A run left `running` without progress this long is taken over by `recover()`. Default 60 s. */
  readonly staleAfterMs?: number;
  /** Names this process on the leases of the tool calls it runs. Default host, pid and a random id. */
  readonly workerId?: string;
  /**
   * Announce again, when the runtime is made, every request still waiting in the store (to the listeners and the
   * `notifier`, as a new request is announced): the process that announced one may have stopped before its notifier
   * delivered it. Each request once however many processes start, claimed in the once store (`announce:<runId>:<approvalId>`)
   * until it expires (a week for one without expiry); expired requests are not announced. Wait for the pass with
   * `runtime.announcePending()`. Default false.
   */
  readonly announcePendingOnStart?: boolean;
  /**
   * The policy of the requests callers outside the agent loop make (`runtime.requestApproval`): rules, grants,
   * approvers, quorum and expiry per action, and the secret that signs them. Without it every request asks a person.
   * Every process that decides such requests needs the same settings (as it needs the same agents).
   */
  readonly requests?: RequestOptions;
  /**
   * Traces and metrics (`openTelemetry()` from `countersign/otel`): each execute, model and tool call, and each
   * approval wait, ended in whichever process records the decision. None by default, at no cost.
   */
  readonly telemetry?: Telemetry;
  /**
   * Signs every decision this runtime records also with an Ed25519 key, so anyone holding the public keys can check
   * an exported audit (`verifyAudit`, `countersign verify-audit`): each entry carries a receipt naming its key.
   * The app publishes the public keys at `/.well-known/jwks.json`. Every process that records decisions of the same
   * runs needs it (an entry recorded without it has no receipt). Default: no receipts.
   */
  readonly receipts?: ReceiptOptions;
  /**
   * Where personal API tokens are kept (`createMemoryPersonTokenStore()`, `createRedisPersonTokenStore({ redis })`):
   * tokens issued to a named person with `runtime.personTokens.issue`, whose decisions the approval app records as
   * that person whatever the request says. Default: none (only the app's shared bearer token).
   */
  readonly personTokens?: PersonTokenStore;
  /**
   * Failures that must not stop a run (a notifier that threw), with what was
   * being done; also the full error of a failed model call (`operation: 'model'`),
   * of which the run's `error` keeps only a public text. Without it, a failed model call's full error is printed
   * with console.error (secrets redacted) and a refused grant or rule with console.warn.
   */
  readonly onError?: (error: unknown, context: { readonly operation: string; readonly runId?: string }) => void;
}

export const runtimeOptionsSchema = optionsObject({
  agents: z
    .array(
      z.custom<Agent>(
        (value) => typeof (value as Agent | undefined)?.execute === 'function',
        'must be made with createAgent',
      ),
    )
    .optional(),
  store: z
    .custom<SnapshotStore>(
      (value) => typeof (value as SnapshotStore | undefined)?.commit === 'function',
      'must implement SnapshotStore',
    )
    .optional(),
  once: z
    .custom<OnceStore>(
      (value) => typeof (value as OnceStore | undefined)?.putIfAbsent === 'function',
      'must implement OnceStore (putIfAbsent, get, replace)',
    )
    .optional(),
  notifier: z
    .custom<Notifier>(
      (value) => typeof (value as Notifier | undefined)?.publish === 'function',
      'must have publish(events)',
    )
    .optional(),
  queue: z
    .custom<ResumeQueue>(
      (value) => typeof (value as ResumeQueue | undefined)?.enqueue === 'function',
      'must have enqueue(runId)',
    )
    .optional(),
  clock: functionSchema().optional(),
  links: linkOptionsSchema.omit({ clock: true }).optional(),
  maxRetries: z.number().int().min(0).max(100).optional(),
  staleAfterMs: z.number().int().positive().optional(),
  workerId: z.string().min(1).optional(),
  announcePendingOnStart: z.boolean().optional(),
  requests: z
    .custom<RequestOptions>(
      (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      'must be an object of request settings, e.g. { policy, tools, decisionSecret }',
    )
    .optional(),
  telemetry: telemetryOption.optional(),
  receipts: receiptOptionsSchema.optional(),
  personTokens: z
    .custom<PersonTokenStore>(
      (value) => typeof (value as PersonTokenStore | undefined)?.revoke === 'function',
      'must implement PersonTokenStore (add, get, list, revoke), e.g. createMemoryPersonTokenStore()',
    )
    .optional(),
  onError: functionSchema().optional(),
});
