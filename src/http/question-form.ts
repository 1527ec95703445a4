// A question's fields as HTML inputs, for every page that takes an answer (the one-click link page, the console's
// card): a labelled input per field, keyboard first (radios or a select for one choice, boxes for several, a number,
// a date, a box for yes/no), what was typed kept and each field's problem under it after a refusal. Posted as
// `answer.<field>` pairs, which `formAnswerEntries` and `readAnswer` read back on the server.
import type { AnswerIssue, Question, QuestionField } from '../index.js';
import { answerInputName, escapeHtml, fieldHint } from '../kit/index.js';

/** What a refused answer leaves on the form: what was typed, per field, and what is wrong. */
export interface QuestionFormState {
  /** Unique among the forms of one page (the console shows many cards). */
  readonly idPrefix: string;
  readonly values?: ReadonlyMap<string, readonly string[]>;
  readonly issues?: readonly AnswerIssue[];
}

const e = escapeHtml;

/** Radios up to this many options; a select beyond. */
const RADIOS = 6;

function attributes(entries: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(entries)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${e(String(value))}"`))
    .join('');
}

/** The input(s) of `field`, described by `described` (its hint and error lines). */
function control(field: QuestionField, id: string, typed: readonly string[], described: string): string {
  const name = answerInputName(field);
  const common = { name, id, required: field.required, 'aria-describedby': described };
  const first = typed[0] ?? '';
  const option = (value: string, type: 'radio' | 'checkbox', index: number) =>
    `<label class="option"><input${attributes({ type, name, value, id: `${id}-${index}`, checked: typed.includes(value), required: type === 'radio' && field.required })}> ${e(value)}</label>`;
  switch (field.kind) {
    case 'choice':
      if (field.options.length <= RADIOS) return field.options.map((value, i) => option(value, 'radio', i)).join('');
      return `<select${attributes(common)}><option value="">Choose…</option>${field.options
        .map((value) => `<option${attributes({ value, selected: value === first })}>${e(value)}</option>`)
        .join('')}</select>`;
    case 'choices':
      return field.options.map((value, i) => option(value, 'checkbox', i)).join('');
    case 'text':
      return `<input${attributes({ ...common, type: 'text', value: first, maxlength: field.maxLength, minlength: field.minLength, autocomplete: 'off' })}>`;
    case 'longText':
      return `<textarea${attributes({ ...common, rows: 4, maxlength: field.maxLength, minlength: field.minLength })}>${e(first)}</textarea>`;
    case 'number':
      return `<input${attributes({ ...common, type: 'number', value: first, step: field.integer ? 1 : 'any', min: field.minimum, max: field.maximum, inputmode: field.integer ? 'numeric' : 'decimal' })}>`;
    case 'boolean':
      return `<label class="option"><input${attributes({ type: 'checkbox', name, id, value: 'true', checked: first === 'true', 'aria-describedby': described })}> Yes</label>`;
    case 'date':
      return `<input${attributes({ ...common, type: 'date', value: first })}>`;
  }
}

/** One field: its title (a legend over a group of radios or boxes), its description and hint, its input, its problem. */
function fieldHtml(field: QuestionField, state: QuestionFormState): string {
  const id = `${state.idPrefix}-${field.name}`;
  const issue = state.issues?.find((item) => item.path === field.name);
  const about = [field.description, fieldHint(field)].filter((part) => part !== undefined).join(' · ');
  const hint = `<span class="hint" id="${e(id)}-hint">${e(about)}</span>`;
  const error =
    issue === undefined
      ? ''
      : `<span class="field-error" id="${e(id)}-error">${e(`${field.title} ${issue.message}`)}</span>`;
  const described = `${id}-hint${issue === undefined ? '' : ` ${id}-error`}`;
  const input = control(field, id, state.values?.get(field.name) ?? [], described);
  const group = field.kind === 'choices' || (field.kind === 'choice' && field.options.length <= RADIOS);
  const invalid = issue === undefined ? '' : ' aria-invalid="true"';
  return group
    ? `<fieldset class="field" data-field="${e(field.name)}"${invalid} aria-describedby="${e(described)}"><legend>${e(field.title)}</legend>${hint}${input}${error}</fieldset>`
    : `<div class="field" data-field="${e(field.name)}"${invalid}><label for="${e(id)}">${e(field.title)}</label>${hint}${input}${error}</div>`;
}

/**
 * The inputs of `question`'s fields, for a `<form>` the page wraps around them, with what a refusal left.
 *
 * @example
 * const html = `<form method="post">${questionFields(request.question, { idPrefix: 'q' })}<button>Answer</button></form>`;
 */
export function questionFields(question: Question, state: QuestionFormState): string {
  const problems = (state.issues ?? []).filter((issue) => !question.fields.some((field) => field.name === issue.path));
  const general =
    problems.length === 0
      ? ''
      : `<p class="field-error" role="alert">${e(problems.map((issue) => `${issue.path || 'The answer'} ${issue.message}`).join('; '))}</p>`;
  return general + question.fields.map((field) => fieldHtml(field, state)).join('');
}

/** What a form post typed, per field name (its `answer.<field>` pairs), to show again after a refusal. */
export function typedValues(entries: Iterable<readonly [string, string]>): ReadonlyMap<string, readonly string[]> {
  const values = new Map<string, string[]>();
  for (const [name, value] of entries) values.set(name, [...(values.get(name) ?? []), value]);
  return values;
}
