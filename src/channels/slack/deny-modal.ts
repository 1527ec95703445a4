// Deny with a reason: the Deny button opens a modal (views.open) with one optional multi-line input, and its
// view_submission decides. The modal carries what the decision needs in private_metadata: the deny token (sealed
// and authenticated by itself; Slack does not seal the metadata), the response_url to answer on (checked against
// the allowed origins like any other), and whether the card is edited in place by the notifier.
import { z } from 'zod';
import { plain } from './slack-markup.js';

export const DENY_MODAL_ID = 'countersign_deny_reason';
const REASON_ID = 'reason';
/** Slack's limit on private_metadata. */
const METADATA_LIMIT = 3000;

/** What a deny modal carries from the click to its submission. */
export interface DenyContext {
  readonly token: string;
  readonly responseUrl?: string;
  /** The card is edited in place by the notifier: the answer goes to the clicker alone. */
  readonly updated: boolean;
}

const contextSchema = z.object({
  token: z.string().min(1).max(2000),
  responseUrl: z.string().max(2048).optional(),
  updated: z.boolean(),
});

/** The modal asking why, or undefined when its context does not fit Slack's private_metadata. */
export function denyModal(context: DenyContext): Readonly<Record<string, unknown>> | undefined {
  const metadata = JSON.stringify(context);
  if (metadata.length > METADATA_LIMIT) return undefined;
  return {
    type: 'modal',
    callback_id: DENY_MODAL_ID,
    title: plain('Deny this call'),
    submit: plain('Deny'),
    close: plain('Cancel'),
    private_metadata: metadata,
    blocks: [
      {
        type: 'input',
        block_id: REASON_ID,
        optional: true,
        label: plain('Why? (recorded with the decision)'),
        element: { type: 'plain_text_input', action_id: REASON_ID, multiline: true, max_length: 1000 },
      },
    ],
  };
}

/** The shape of a deny modal's view_submission that is read. */
export const denySubmissionView = z.looseObject({
  callback_id: z.string().max(255).optional(),
  private_metadata: z.string().max(METADATA_LIMIT).optional(),
  state: z
    .looseObject({
      values: z.record(z.string(), z.record(z.string(), z.looseObject({ value: z.string().max(3000).nullish() }))),
    })
    .optional(),
});

/** The context and the typed reason (trimmed; undefined when left empty) of a submitted deny modal, or undefined for a metadata that is not ours. */
export function readDenySubmission(
  view: z.output<typeof denySubmissionView>,
): { readonly context: DenyContext; readonly reason: string | undefined } | undefined {
  const context = modalContext(view.private_metadata);
  if (context === undefined) return undefined;
  const reason = view.state?.values[REASON_ID]?.[REASON_ID]?.value?.trim();
  return { context, reason: reason || undefined };
}

/** The context a modal of ours carried in its private_metadata, or undefined for one that is not ours. */
export function modalContext(metadata: string | undefined): DenyContext | undefined {
  let context: z.output<typeof contextSchema>;
  try {
    context = contextSchema.parse(JSON.parse(metadata ?? ''));
  } catch {
    return undefined;
  }
  return {
    token: context.token,
    updated: context.updated,
    ...(context.responseUrl === undefined ? {} : { responseUrl: context.responseUrl }),
  };
}
