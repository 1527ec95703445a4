// Answering a question in Slack: the Answer button opens a modal (views.open) with an input block per field (a
// static select for one choice, boxes or a multi-select for several, a text input, multi-line for long text, a
// number input, a box for yes/no, a date picker), and its view_submission is read into form entries for the kit's
// readAnswer. A refused answer goes back as Slack's `response_action: errors`, each under its field. The modal
// carries what the decision needs in private_metadata, as the deny modal does (the approve token seals itself).
import { z } from 'zod';
import type { AnswerIssue, ApprovalRequest, Question, QuestionField } from '../../index.js';
import { fieldHint, fitEscaped } from '../../kit/index.js';
import type { DenyContext } from './deny-modal.js';
import { mrkdwn, plain, SECTION_LIMIT, slackEscape } from './slack-markup.js';

export const ANSWER_MODAL_ID = 'countersign_answer';
/** Slack's limits: private_metadata, a label, a hint, an option's text. */
const METADATA_LIMIT = 3000;
const LABEL_LIMIT = 2000;
const HINT_LIMIT = 2000;
const OPTION_TEXT_LIMIT = 75;
/** Slack's checkboxes take at most 10 options; more are a multi-select. */
const CHECKBOXES_LIMIT = 10;

const cut = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);
const option = (value: string) => ({ text: plain(cut(value, OPTION_TEXT_LIMIT)), value });

/** The input element of `field`, its action_id the field's name. */
function element(field: QuestionField): Record<string, unknown> {
  const action_id = field.name;
  switch (field.kind) {
    case 'choice':
      return { type: 'static_select', action_id, placeholder: plain('Choose…'), options: field.options.map(option) };
    case 'choices':
      return field.options.length <= CHECKBOXES_LIMIT
        ? { type: 'checkboxes', action_id, options: field.options.map(option) }
        : { type: 'multi_static_select', action_id, placeholder: plain('Choose…'), options: field.options.map(option) };
    case 'text':
    case 'longText':
      return {
        type: 'plain_text_input',
        action_id,
        multiline: field.kind === 'longText',
        ...(field.maxLength === undefined ? {} : { max_length: field.maxLength }),
        ...(field.minLength === undefined ? {} : { min_length: field.minLength }),
      };
    case 'number':
      return {
        type: 'number_input',
        action_id,
        is_decimal_allowed: !field.integer,
        ...(field.minimum === undefined ? {} : { min_value: String(field.minimum) }),
        ...(field.maximum === undefined ? {} : { max_value: String(field.maximum) }),
      };
    case 'boolean':
      return { type: 'checkboxes', action_id, options: [{ text: plain('Yes'), value: 'true' }] };
    case 'date':
      return { type: 'datepicker', action_id };
  }
}

/** The input block of `field`: an unticked yes/no box is a no, so it is never required. */
function inputBlock(field: QuestionField): Record<string, unknown> {
  const hint = [field.description, fieldHint(field)].filter((part) => part !== undefined).join(' · ');
  return {
    type: 'input',
    block_id: field.name,
    optional: !field.required || field.kind === 'boolean',
    label: plain(cut(field.title, LABEL_LIMIT)),
    hint: plain(cut(hint, HINT_LIMIT)),
    element: element(field),
  };
}

/** The modal answering `request`'s question, or undefined when its context does not fit Slack's private_metadata. */
export function answerModal(
  request: ApprovalRequest,
  question: Question,
  context: DenyContext,
): Readonly<Record<string, unknown>> | undefined {
  const metadata = JSON.stringify(context);
  if (metadata.length > METADATA_LIMIT) return undefined;
  return {
    type: 'modal',
    callback_id: ANSWER_MODAL_ID,
    title: plain('Answer the question'),
    submit: plain('Answer'),
    close: plain('Cancel'),
    private_metadata: metadata,
    blocks: [
      { type: 'section', text: mrkdwn(fitEscaped(slackEscape(request.description), SECTION_LIMIT)) },
      ...question.fields.map(inputBlock),
    ],
  };
}

const chosen = z.looseObject({ value: z.string().max(4000) });

/** The shape of an answer modal's view_submission that is read: each block's element state, by block and action. */
export const answerSubmissionView = z.looseObject({
  callback_id: z.string().max(255).optional(),
  private_metadata: z.string().max(METADATA_LIMIT).optional(),
  state: z
    .looseObject({
      values: z.record(
        z.string().max(255),
        z.record(
          z.string().max(255),
          z.looseObject({
            value: z.string().max(20_000).nullish(),
            selected_option: chosen.nullish(),
            selected_options: z.array(chosen).max(100).nullish(),
            selected_date: z.string().max(64).nullish(),
          }),
        ),
      ),
    })
    .optional(),
});

/** A submitted answer modal's state as form entries (block id = field name), for `readAnswer`. */
export function submittedEntries(view: z.output<typeof answerSubmissionView>): [string, string][] {
  const entries: [string, string][] = [];
  for (const [block, actions] of Object.entries(view.state?.values ?? {}))
    for (const state of Object.values(actions)) {
      const values = [
        state.value,
        state.selected_option?.value,
        ...(state.selected_options ?? []).map((item) => item.value),
        state.selected_date,
      ];
      for (const value of values) if (typeof value === 'string') entries.push([block, value]);
    }
  return entries;
}

/**
 * A refused answer as Slack's `response_action: errors`: each problem under its field's block; one about no field of
 * the form (a forged extra value) under the first field, so it is still shown.
 */
export function answerErrors(question: Question, issues: readonly AnswerIssue[]): Record<string, unknown> {
  const errors: Record<string, string> = {};
  const first = question.fields[0]!.name;
  for (const issue of issues) {
    const field = question.fields.find((item) => item.name === issue.path);
    const block = field?.name ?? first;
    const text =
      field === undefined ? `${issue.path || 'The answer'} ${issue.message}` : `${field.title} ${issue.message}`;
    errors[block] = errors[block] === undefined ? text : `${errors[block]}; ${text}`;
  }
  return { response_action: 'errors', errors };
}
