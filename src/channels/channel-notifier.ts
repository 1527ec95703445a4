// The notifier every chat and mail channel is: which events it acts on, a queue per run, retries, each approval
// asked once however often its event is delivered (a OnceStore claim), the posted message remembered so it can be
// updated in place from any process, and failures reported without secrets. A channel supplies only a driver: how
// to post a card and how to update it.
import { randomUUID } from 'node:crypto';
import type { ApprovalLinkTokens, RunEvent, ApprovalRequest, RunOrigin, Notifier, LinkedRuntime } from '../index.js';
import {
  createDeliveryQueue,
  type LaneSlot,
  freeingSlot,
  withRetries,
  type RetryPolicy,
  publicError,
  type CardNudge,
  type CardOutcome,
} from '../kit/index.js';

/** What a channel shows to ask for one decision. */
export interface ApprovalCard {
  readonly runId: string;
  readonly agentName: string;
  readonly request: ApprovalRequest;
  /** The one-click tokens its buttons or links carry. */
  readonly tokens: ApprovalLinkTokens;
  /** Where the run came from, when its starter said: a channel may ask there. */
  readonly origin?: RunOrigin;
  /** The run's session, when it has one (its wider button then approves for the session). */
  readonly sessionId?: string;
  /** Set when the card asks again for a request still waiting: a reminder, or an escalation (`cardHead` opens with it). */
  readonly nudge?: CardNudge;
}

/** How a posted card is updated: the reference `post` returned (undefined when it returned none), and what happened. */
export interface CardUpdate<Ref> {
  readonly runId: string;
  readonly approvalId: string;
  readonly ref: Ref | undefined;
  readonly outcome: CardOutcome;
}

/**
 * What a channel adds to the kit: how to post a card and how to update it.
 * Throw a `DeliveryError` (retryable or not) for a failure; other errors are
 * not retried. `Ref` must be plain JSON: it is kept in the OnceStore so any
 * process can update the card.
 */
export interface ChannelDriver<Ref> {
  /** Lower-case name: keys in the OnceStore, the prefix of its deciders (`slack:U123`). */
  readonly name: string;
  post(card: ApprovalCard): Promise<Ref | undefined>;
  /** Called when the approval was decided (by anyone, or by expiry) and when the approved call finished. */
  update(update: CardUpdate<Ref>): Promise<void>;
  /** Removes what must never be reported (a bot token in a URL) from error text. */
  redact?(text: string): string;
}

/**
 * What a channel notifier was doing when something failed, for `onError`.
 *
 * @example
 * createSlackNotifier({ runtime, token, channel, onError: (error, { channel, operation, runId }) => log.warn({ err: error, channel, operation, runId }) });
 */
export interface ChannelErrorContext {
  readonly channel: string;
  /** `post`: the card could not be posted after the last try; `update`: it could not be updated. */
  readonly operation: 'post' | 'update';
  readonly runId: string;
  readonly approvalId: string;
}

export interface ChannelNotifierSettings {
  readonly runtime: LinkedRuntime;
  /** How long the buttons work (never past the approval's own expiry). */
  readonly linkTtlMs: number;
  readonly retry: RetryPolicy;
  readonly concurrency: number;
  readonly clock: () => number;
  readonly onError?: (error: unknown, context: ChannelErrorContext) => void;
}

/**
 * A `Notifier` for one channel: `publish` queues and returns at once, `flush`
 * waits for everything queued.
 *
 * @example
 * const slack: ChannelNotifier = createSlackNotifier({ runtime, token, channel });
 * runtime.subscribe((event) => void slack.publish([event]));
 * await slack.flush(); // before the process exits
 */
export interface ChannelNotifier extends Notifier {
  publish(events: readonly RunEvent[]): Promise<void>;
  flush(): Promise<void>;
}

/** A card is remembered this long past its buttons' expiry, so the call's end can still be shown on it. */
const KEPT_AFTER_EXPIRY_MS = 7 * 86_400_000;

interface Held<Ref> {
  readonly ref: Ref | null;
}

type AskEvent = Extract<RunEvent, { type: 'approval-requested' | 'approval-reminder' | 'approval-escalated' }>;
const sessionOf = (event: AskEvent) => (event.sessionId === undefined ? {} : { sessionId: event.sessionId });
const originOf = (event: AskEvent) => (event.origin === undefined ? {} : { origin: event.origin });

/** The notifier for `driver`. */
export function createChannelNotifier<Ref>(
  driver: ChannelDriver<Ref>,
  settings: ChannelNotifierSettings,
): ChannelNotifier {
  const cards = new ChannelCards(driver, settings);
  return { publish: (events) => cards.publish(events), flush: () => cards.flush() };
}

/** One channel's cards: asked once, asked again on a nudge, updated with the outcome, each from any process. */
class ChannelCards<Ref> {
  readonly #driver: ChannelDriver<Ref>;
  readonly #settings: ChannelNotifierSettings;
  readonly #queue: ReturnType<typeof createDeliveryQueue>;

  constructor(driver: ChannelDriver<Ref>, settings: ChannelNotifierSettings) {
    this.#driver = driver;
    this.#settings = settings;
    this.#queue = createDeliveryQueue({ concurrency: settings.concurrency });
  }

  async publish(events: readonly RunEvent[]): Promise<void> {
    const queue = this.#queue;
    for (const event of events) {
      if (event.type === 'approval-requested') queue.enqueue(event.runId, (slot) => this.#ask(event, slot));
      else if (
        event.type === 'approval-reminder' ||
        (event.type === 'approval-escalated' && this.#escalatedHere(event))
      ) {
        queue.enqueue(event.runId, (slot) => this.#askAgain(event, slot));
      } else if (event.type === 'approval-resolved' && event.entry.approvalId !== undefined) {
        const { entry } = event;
        queue.enqueue(event.runId, (slot) =>
          this.#show(event.runId, entry.approvalId!, { kind: 'decided', entry }, entry.by, slot),
        );
      } else if (event.type === 'tool-finished') {
        queue.enqueue(event.runId, (slot) =>
          this.#show(event.runId, event.approvalId, { kind: 'finished', event }, undefined, slot),
        );
      }
    }
  }

  flush(): Promise<void> {
    return this.#queue.flush();
  }

  /** An escalation to `{ channel }` is posted only by the notifier of that name; one to approver ids, by every channel. */
  #escalatedHere(event: Extract<RunEvent, { type: 'approval-escalated' }>): boolean {
    return Array.isArray(event.to) || (event.to as { channel: string }).channel === this.#driver.name;
  }

  #cardKey(runId: string, approvalId: string): string {
    return `${this.#driver.name}:card:${runId}:${approvalId}`;
  }

  #retryIn(slot: LaneSlot) {
    return freeingSlot(this.#settings.retry, slot);
  }

  /** Until when a card's buttons work: the link lifetime, never past the request's own expiry. */
  #buttonsExpireAt(request: ApprovalRequest, now: number): number {
    return Math.min(now + this.#settings.linkTtlMs, request.expiresAt ?? Number.POSITIVE_INFINITY);
  }

  /** The card asking for an event's request, its buttons' tokens minted to expire at `expiresAt`. */
  #cardOf(event: AskEvent, expiresAt: number, nudge?: CardNudge): ApprovalCard {
    const { runId, request } = event;
    const tokens = this.#settings.runtime.links.mint({
      runId,
      approvalId: request.approvalId,
      expiresAt,
      ...sessionOf(event),
      ...(request.decisions === undefined ? {} : { decisions: request.decisions }),
    });
    return {
      runId,
      agentName: event.agentName,
      request,
      tokens,
      ...(nudge === undefined ? {} : { nudge }),
      ...sessionOf(event),
      ...originOf(event),
    };
  }

  /** Tells the runtime's telemetry of a delivery (a card posted, an outcome shown) or its failure. */
  #delivered(operation: 'post' | 'update', ok: boolean): void {
    try {
      this.#settings.runtime.telemetry?.delivered?.({ channel: this.#driver.name, operation, ok });
    } catch {
      // Telemetry never stops a delivery.
    }
  }

  #report(error: unknown, context: Omit<ChannelErrorContext, 'channel'>): void {
    this.#delivered(context.operation, false);
    try {
      this.#settings.onError?.(publicError(error, this.#driver.redact), { channel: this.#driver.name, ...context });
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  }

  async #ask(event: Extract<RunEvent, { type: 'approval-requested' }>, slot: LaneSlot): Promise<void> {
    const { runId, request } = event;
    const { once } = this.#settings.runtime;
    const context = { operation: 'post' as const, runId, approvalId: request.approvalId };
    const now = this.#settings.clock();
    const expiresAt = this.#buttonsExpireAt(request, now);
    if (expiresAt <= now) return;
    const key = this.#cardKey(runId, request.approvalId);
    const keep = expiresAt - now + KEPT_AFTER_EXPIRY_MS;
    const claim = `posting:${randomUUID()}`;
    try {
      // A redelivered event (another instance, a stream's retry) finds the claim: the card is asked for once.
      if ((await once.putIfAbsent(key, claim, keep)) !== undefined) return;
    } catch (error) {
      this.#report(error, context);
      return;
    }
    const card = this.#cardOf(event, expiresAt);
    try {
      const ref = await withRetries(() => this.#driver.post(card), this.#retryIn(slot));
      this.#delivered('post', true);
      await once.replace(key, claim, JSON.stringify({ ref: ref ?? null } satisfies Held<Ref>), keep);
    } catch (error) {
      this.#report(error, context);
      // Let a later delivery of the same event try again.
      await once.replace(key, claim, undefined, keep).catch(() => {});
    }
  }

  /**
   * A reminder or an escalation: a new card for the request still waiting, posted once per nudge however often its
   * event is delivered. Its buttons decide like the first card's; the outcome is shown on the first card.
   */
  async #askAgain(
    event: Extract<RunEvent, { type: 'approval-reminder' | 'approval-escalated' }>,
    slot: LaneSlot,
  ): Promise<void> {
    const { runId, request } = event;
    const { once } = this.#settings.runtime;
    const context = { operation: 'post' as const, runId, approvalId: request.approvalId };
    const nudge: CardNudge =
      event.type === 'approval-reminder'
        ? { kind: 'reminder', reminder: event.reminder }
        : { kind: 'escalation', to: event.to };
    const now = this.#settings.clock();
    const expiresAt = this.#buttonsExpireAt(request, now);
    if (expiresAt <= now) return;
    const which = event.type === 'approval-reminder' ? `r${event.reminder}` : `e${event.step}`;
    const key = `${this.#driver.name}:nudge:${runId}:${request.approvalId}:${which}`;
    try {
      // A value of its own: a resend of this claim after a lost reply finds it and counts as this claim, not another's.
      if ((await once.putIfAbsent(key, randomUUID(), expiresAt - now + KEPT_AFTER_EXPIRY_MS)) !== undefined) return;
      const card = this.#cardOf(event, expiresAt, nudge);
      await withRetries(() => this.#driver.post(card), this.#retryIn(slot));
      this.#delivered('post', true);
    } catch (error) {
      this.#report(error, context);
    }
  }

  async #show(
    runId: string,
    approvalId: string,
    outcome: CardOutcome,
    by: string | undefined,
    slot: LaneSlot,
  ): Promise<void> {
    const { once } = this.#settings.runtime;
    const name = this.#driver.name;
    try {
      const held = await once.get(this.#cardKey(runId, approvalId));
      // Never asked here (a rule decided, another channel's card), or still being posted elsewhere.
      if (held === undefined || held.startsWith('posting:')) return;
      const { ref } = JSON.parse(held) as Held<Ref>;
      // A click in this channel already rewrote a card it has no handle on.
      if (ref === null && outcome.kind === 'decided' && by?.startsWith(`${name}:`)) return;
      const marker = `${name}:shown:${runId}:${approvalId}:${outcome.kind}`;
      if ((await once.putIfAbsent(marker, randomUUID(), KEPT_AFTER_EXPIRY_MS)) !== undefined) return;
      await withRetries(
        () => this.#driver.update({ runId, approvalId, ref: ref ?? undefined, outcome }),
        this.#retryIn(slot),
      );
      this.#delivered('update', true);
    } catch (error) {
      this.#report(error, { operation: 'update', runId, approvalId });
    }
  }
}
