// The webhook channel through the channel contract. What "a person reads" is what a receiver shows after
// JSON-decoding the body: a request's tool, description and argument values, what the tool says about itself and the
// warnings, a question's fields and options, and a decision or a finished call, in the kit's own wording (delegationLine, annotationLine, cardWarnings, outcomeLine,
// as plain text), so what the contract reads is what the body carries. A receiver deduplicates on webhook-id (the Standard Webhooks
// contract: a repeated id is dropped), so deliveries with the same id count once, and only deliveries the receiver
// accepted (verified signature, answered 2xx) count at all. Webhooks have no buttons: the click test ends early.
import type { LinkedRuntime } from 'countersign';
import {
  annotationLine,
  cardWarnings,
  delegationLine,
  outcomeLine,
  type CardOutcome,
  type Markup,
} from 'countersign/channels';
import { createWebhookNotifier, verifyWebhook, type WebhookDeadLetter, type WebhookEvent } from 'countersign/webhooks';
import { channelContract, type ChannelFixture, type Delivery } from '../../support/channel-contract.js';
import { startReceiver, type ReceivedDelivery } from '../../support/webhook-receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** A receiver URL often carries a token in its path (a Slack webhook's does). */
const URL_TOKEN = 'url-token-Zq81xT0kP';

const plain: Markup = {
  escape: (text) => text,
  strong: (text) => text,
  code: (text) => text,
  who: (by) => by ?? 'someone',
};

function read(event: WebhookEvent): Delivery | undefined {
  switch (event.type) {
    case 'approval.requested': {
      const { toolName, description = '', args } = event.data;
      const values = Object.values((args ?? {}) as Record<string, unknown>).map(String);
      const notes = [
        delegationLine(event.data, plain, event.data.agentName),
        annotationLine(event.data, plain),
        cardWarnings(event.data, plain, 10_000),
      ];
      // A question's form: each field's title and options.
      const form = (event.data.question?.fields ?? []).flatMap((field) => [
        field.title,
        ...('options' in field ? field.options : []),
      ]);
      return { kind: 'post', visible: [toolName, description, ...values, ...notes, ...form].join('\n'), active: [] };
    }
    case 'approval.resolved':
      return { kind: 'update', visible: outcomeLine({ kind: 'decided', entry: event.data }, plain), active: [] };
    case 'tool.finished': {
      const outcome: CardOutcome = { kind: 'finished', event: { type: 'tool-finished', ...event.data } };
      return { kind: 'update', visible: outcomeLine(outcome, plain), active: [] };
    }
    default:
      return undefined;
  }
}

channelContract({
  name: 'webhooks',
  secrets: [SECRET, URL_TOKEN],
  async setup(_runtime: LinkedRuntime, { faults = [], echoSecretsInErrors = false }) {
    const accepted = new Set<ReceivedDelivery>();
    const receiver = await startReceiver((delivery) => {
      const fault = faults[delivery.seq - 1];
      if (!fault) {
        accepted.add(delivery);
        return 200;
      }
      const echo = echoSecretsInErrors ? `refused ${url} signed with ${SECRET}` : '';
      return {
        status: fault.status,
        body: echo,
        headers: fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
      };
    });
    const url = `${receiver.url}/T0/${URL_TOKEN}`;
    const sleeps: number[] = [];
    // Dead letters are how a webhook notifier reports a delivery that failed; onError reports only onDeadLetter's own failures.
    const errors: unknown[] = [];
    const make = () =>
      createWebhookNotifier({
        url,
        secret: SECRET,
        events: ['approval.requested', 'approval.resolved', 'tool.finished'],
        sleep: async (ms) => void sleeps.push(ms),
        onDeadLetter: (entry: WebhookDeadLetter) => void errors.push(entry),
        onError: (error) => void errors.push(error),
      });
    const fixture: ChannelFixture = {
      notifier: make(),
      another: make,
      deliveries() {
        const seen = new Set<string>();
        const shown: Delivery[] = [];
        for (const delivery of receiver.deliveries) {
          if (!accepted.has(delivery)) continue;
          const id = String(delivery.headers['webhook-id']);
          const headers = {
            id,
            timestamp: String(delivery.headers['webhook-timestamp']),
            signature: String(delivery.headers['webhook-signature']),
          };
          if (
            verifyWebhook([SECRET], headers, delivery.body, Math.floor(Date.now() / 1000)) !== undefined ||
            seen.has(id)
          )
            continue;
          seen.add(id);
          let event: WebhookEvent;
          try {
            event = JSON.parse(delivery.body) as WebhookEvent;
          } catch {
            shown.push({ kind: 'post', visible: delivery.body, active: ['a body that is not JSON'] });
            continue;
          }
          const delivered = read(event);
          if (delivered) shown.push(delivered);
        }
        return shown;
      },
      sleeps,
      errors,
      close: () => receiver.close(),
    };
    return fixture;
  },
});
