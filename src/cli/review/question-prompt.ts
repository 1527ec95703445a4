// A question at the terminal: its fields asked one at a time, each line read into the answer with the kit's
// readAnswer and asked again until it fits (an option by its number or its text, several separated by commas, y or n,
// a number, a date); an empty line leaves an optional field out.
import { readAnswer } from '../../kit/surface/answer-form.js';
import { fieldHint } from '../../kit/surface/question-wording.js';
import type { Answer, Question, QuestionField } from '../../run/question.js';
import { inert } from '../format.js';
import type { Paint } from './paint.js';

/** Where the prompts go and the typed lines come from. */
export interface PromptIo {
  readonly write: (text: string) => void;
  /** The next typed line; undefined at the end of input. */
  readonly line: () => Promise<string | undefined>;
  readonly paint: Paint;
}

/** An option by its number (`2`) or as typed. */
const option = (field: QuestionField, text: string) =>
  'options' in field && /^\d{1,2}$/.test(text) ? (field.options[Number(text) - 1] ?? text) : text;

/** The form entries a typed line gives `field`. */
function entriesOf(field: QuestionField, typed: string): [string, string][] {
  const text = typed.trim();
  if (text === '') return [];
  if (field.kind === 'choices')
    return text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .map((part): [string, string] => [field.name, option(field, part)]);
  if (field.kind === 'boolean') return [[field.name, /^y$/i.test(text) ? 'yes' : /^n$/i.test(text) ? 'no' : text]];
  return [[field.name, field.kind === 'choice' ? option(field, text) : typed]];
}

/** The prompt of `field`: its title, what it takes, and its options numbered. */
function promptOf(field: QuestionField, paint: Paint): string {
  const options =
    'options' in field
      ? field.options.map((item, index) => `\n  ${paint.key(String(index + 1))} ${inert(item)}`).join('')
      : '';
  const how =
    field.kind === 'boolean'
      ? `y or n${field.required ? '' : ' (optional)'}`
      : field.kind === 'choices'
        ? `${fieldHint(field)}; numbers or options, separated by commas`
        : fieldHint(field);
  const about = [field.description, how]
    .filter((part) => part !== undefined)
    .map((part) => inert(part))
    .join(' · ');
  return `${paint.title(inert(field.title))} ${paint.muted(`(${about})`)}${options}\n> `;
}

/**
 * Asks `question`'s fields one at a time until each fits; resolves with the answer, or undefined when input ends
 * first. The runtime checks the whole answer again where it is recorded.
 *
 * @example
 * const answer = await askQuestion(question, { write: (text) => stdout.write(text), line: () => reader.line(), paint });
 */
export async function askQuestion(question: Question, io: PromptIo): Promise<Answer | undefined> {
  const entries: [string, string][] = [];
  for (const field of question.fields) {
    for (;;) {
      io.write(promptOf(field, io.paint));
      const typed = await io.line();
      if (typed === undefined) return undefined;
      const given = entriesOf(field, typed);
      // No line is no box ticked on a form; at the terminal a yes/no the question needs is asked for outright.
      const unsaid = field.kind === 'boolean' && field.required && given.length === 0;
      const issue = unsaid ? { message: 'is required: y or n' } : readAnswer({ fields: [field] }, given).issues[0];
      if (issue === undefined) {
        entries.push(...given);
        break;
      }
      io.write(`${io.paint.bad(inert(`${field.title} ${issue.message}`))}\n`);
    }
  }
  return readAnswer(question, entries).answer;
}
