// A question in Discord: a form of up to five text, number, date or one-choice fields is a modal (text inputs, a
// string select) that Answer opens; any other form links to its page on the approval app (`baseUrl`). The card lists
// the fields instead of the arguments; a submitted modal is read into form entries for the kit's readAnswer.
import type { ApprovalRequest, Question, QuestionField } from '../../index.js';
import { fieldHint } from '../../kit/index.js';
import { escapeDiscord } from './discord-markup.js';

/** Discord's limits: components in a modal, a label's and a placeholder's length, a modal's title. */
const MODAL_FIELDS = 5;
const LABEL_LIMIT = 45;
const PLACEHOLDER_LIMIT = 100;
const INPUT_LIMIT = 4000;

const cut = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);

/** True when `question` fits a modal: at most five fields, each typed or one choice. */
export function fitsModal(question: Question): boolean {
  return (
    question.fields.length <= MODAL_FIELDS &&
    question.fields.every((field) => field.kind !== 'choices' && field.kind !== 'boolean')
  );
}

/** The card's lines about the question: its fields, and where it is answered. */
export function questionLines(question: Question, pageUrl: string | undefined): string {
  const fields = question.fields.map(
    (field) => `• **${escapeDiscord(field.title)}**: ${escapeDiscord(fieldHint(field))}`,
  );
  const how = fitsModal(question)
    ? 'Press Answer to fill it in.'
    : pageUrl === undefined
      ? 'This form is answered in the approval console.'
      : 'Answer it on its page (the button below).';
  return `${fields.join('\n')}\n${how}`;
}

/** One field as a modal component: a text input in a row, or a string select in a label. */
function component(field: QuestionField): Record<string, unknown> {
  const label = cut(field.title, LABEL_LIMIT);
  const hint = cut(
    [field.description, fieldHint(field)].filter((part) => part !== undefined).join(' · '),
    PLACEHOLDER_LIMIT,
  );
  if (field.kind === 'choice')
    return {
      type: 18,
      label,
      description: hint,
      component: {
        type: 3,
        custom_id: field.name,
        required: field.required,
        min_values: field.required ? 1 : 0,
        max_values: 1,
        options: field.options.map((option) => ({ label: cut(option, 100), value: option })),
      },
    };
  const bounds =
    field.kind === 'text' || field.kind === 'longText'
      ? {
          max_length: field.maxLength ?? INPUT_LIMIT,
          ...(field.minLength === undefined ? {} : { min_length: field.minLength }),
        }
      : {};
  return {
    type: 1,
    components: [
      {
        type: 4,
        custom_id: field.name,
        style: field.kind === 'longText' ? 2 : 1,
        label,
        placeholder: hint,
        required: field.required,
        ...bounds,
      },
    ],
  };
}

/** The modal (interaction response type 9) that answers `request`'s question, submitted under `customId`. */
export function questionModal(customId: string, request: ApprovalRequest, question: Question): Record<string, unknown> {
  return {
    type: 9,
    data: {
      custom_id: customId,
      title: cut(request.description, LABEL_LIMIT),
      components: question.fields.map(component),
    },
  };
}

/** A submitted modal component: a row of text inputs, or a label around a select. */
export interface SubmittedComponent {
  readonly components?:
    | readonly { readonly custom_id?: string | undefined; readonly value?: string | undefined }[]
    | undefined;
  readonly component?:
    | {
        readonly custom_id?: string | undefined;
        readonly values?: readonly string[] | undefined;
        readonly value?: string | undefined;
      }
    | undefined;
}

/** A submitted modal's values as form entries (custom_id = field name), for `readAnswer`. */
export function modalEntries(components: readonly SubmittedComponent[]): [string, string][] {
  const entries: [string, string][] = [];
  for (const row of components)
    for (const item of [...(row.components ?? []), ...(row.component === undefined ? [] : [row.component])]) {
      if (item.custom_id === undefined) continue;
      const { values = [], value } = item as { values?: readonly string[]; value?: string };
      for (const text of [...values, ...(value === undefined ? [] : [value])]) entries.push([item.custom_id, text]);
    }
  return entries;
}
