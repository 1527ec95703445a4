// The metrics, made once per `openTelemetry()`: GenAI names where the conventions have them, ours under `countersign.`.
import type { Meter } from '@opentelemetry/api';

export type Instruments = ReturnType<typeof instrumentsOf>;

export function instrumentsOf(meter: Meter) {
  return {
    wait: meter.createHistogram('countersign.approval.wait', {
      unit: 'ms',
      description: 'Time from an approval request to its decision, by tool, outcome and source.',
    }),
    pending: meter.createUpDownCounter('countersign.approval.pending', {
      unit: '{request}',
      description: 'Approval requests waiting for a decision.',
    }),
    decisions: meter.createCounter('countersign.approval.decisions', {
      unit: '{decision}',
      description: 'Decisions on tool calls (human or automatic), by tool, outcome and source.',
    }),
    grantUses: meter.createCounter('countersign.grant.uses', {
      unit: '{call}',
      description: 'Calls a session or agent grant decided.',
    }),
    reminders: meter.createCounter('countersign.approval.reminders', {
      unit: '{reminder}',
      description: 'Reminders sent for waiting requests.',
    }),
    escalations: meter.createCounter('countersign.approval.escalations', {
      unit: '{escalation}',
      description: 'Escalation steps taken for waiting requests.',
    }),
    deliveries: meter.createCounter('countersign.channel.deliveries', {
      unit: '{delivery}',
      description: 'Cards posted and outcomes shown by channels, by channel, operation and outcome (ok, failed).',
    }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      unit: '{token}',
      description: 'Tokens used per model call, by gen_ai.token.type.',
    }),
  };
}
