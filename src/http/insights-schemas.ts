// `GET /insights`: its query, read by the route, and its answer, described for the OpenAPI document.
import { z } from 'zod';

/** `?since=`: an ISO date and time (UTC when it names no zone) or epoch ms; the route bounds it to the last 90 days. */
export const insightsQuery = z.object({
  // An emptied form field is no start: the default window.
  since: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .max(40)
      .transform((text, context) => {
        // A date and time without a zone (the console's `datetime-local`) is UTC, as the page says.
        const zoned = !text.includes('T') || /[zZ]|[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`;
        const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(zoned);
        if (Number.isNaN(ms)) context.addIssue({ code: 'custom', message: 'must be an ISO date and time or epoch ms' });
        return ms;
      })
      .optional()
      .describe(
        'Start of the window: ISO 8601 (UTC without a zone) or epoch ms, within the last 90 days; 7 days ago by default.',
      ),
  ),
});

const counts = {
  requests: z.number(),
  approved: z.number(),
  denied: z.number(),
  expired: z.number(),
  dismissed: z.number(),
  approvalRate: z
    .number()
    .nullable()
    .describe('approved / (approved + denied); null when none was approved or denied.'),
  timeToDecideMs: z
    .object({
      median: z.number(),
      p90: z.number(),
      measured: z.number().describe('How many decisions the times are of.'),
    })
    .nullable()
    .describe('Over the requests a person answered (approved, denied, dismissed), nearest rank; null when none.'),
};

export const insightsAnswerSchema = z.object({
  source: z
    .literal('history')
    .describe(
      'The decisions this app saw on its event feed since `listeningSince`, kept in memory (the last `limit`).',
    ),
  since: z.number().describe('Epoch ms, inclusive.'),
  until: z.number().describe('Epoch ms: now.'),
  count: z.number().describe('Requests decided in the window.'),
  listeningSince: z.number().describe('Epoch ms since which this app counts: nothing decided before it is in.'),
  limit: z.number(),
  dropped: z.boolean().describe('True when older decisions were let go past `limit`: the window then starts later.'),
  tools: z.array(z.object({ tool: z.string(), ...counts })),
  approvers: z.array(
    z.object({
      approver: z
        .string()
        .nullable()
        .describe('Who decided; for an expired request each approver it named, or null when it named none.'),
      ...counts,
    }),
  ),
});
