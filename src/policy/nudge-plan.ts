// What a request waiting for a person is nudged with: reminders every `remindAfterMs`, and escalation steps that
// bring more people (or a channel) in. Declared on a tool, a policy rule (the rule's wins) or, for reminders, the
// agent; validated here once for all three.
import { z } from 'zod';
import type { EscalationStep } from '../run/types.js';

/** The longest a timer-like setting may be: Node keeps no longer timer, and nobody waits longer for a reminder. */
const MAX_MS = 2_147_483_647;

const milliseconds = z
  .number()
  .int('must be a whole number of milliseconds')
  .min(1000, 'must be at least 1000 ms: the sweeper runs on an interval of seconds')
  .max(MAX_MS, 'must be at most 2147483647 ms (about 24.8 days)');

/** `remindAfterMs` on a tool, a rule or the agent. */
export const remindAfterMsSchema = milliseconds;

const targetSchema = z.union([
  z
    .array(z.string().min(1, 'must be an approver id'))
    .min(1, 'must name at least one approver id (or use { channel })'),
  z.strictObject({ channel: z.string().min(1, 'must name a channel its notifier is known by') }),
]);

/** `escalate` on a tool or a rule: steps in the order they fire, each later than the one before. */
export const escalateSchema = z
  .array(z.strictObject({ afterMs: milliseconds, to: targetSchema }))
  .min(1, 'must have at least one step; leave escalate out for none')
  .superRefine((steps, context) => {
    for (let index = 1; index < steps.length; index++) {
      if (steps[index]!.afterMs > steps[index - 1]!.afterMs) continue;
      context.addIssue({
        code: 'custom',
        path: [index, 'afterMs'],
        message: `must be later than step ${index - 1}'s afterMs (${steps[index - 1]!.afterMs}): list the steps in the order they fire`,
      });
    }
  });

/** How a request is nudged while it waits; both optional. */
export interface NudgePlan {
  readonly remindAfterMs?: number;
  readonly escalate?: readonly EscalationStep[];
}

/**
 * The plan a new request gets: the rule's settings win over the tool's, field by field, and the agent's
 * `remindAfterMs` applies where neither sets one.
 */
export function nudgePlanOf(
  rule: NudgePlan | undefined,
  tool: NudgePlan,
  agentRemindAfterMs: number | undefined,
): NudgePlan {
  const remindAfterMs = rule?.remindAfterMs ?? tool.remindAfterMs ?? agentRemindAfterMs;
  const escalate = rule?.escalate ?? tool.escalate;
  return { ...(remindAfterMs === undefined ? {} : { remindAfterMs }), ...(escalate === undefined ? {} : { escalate }) };
}
