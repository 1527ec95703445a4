// A question's answer as a surface receives it: a form post, a chat modal's state, a pressed option, a typed reply all
// arrive as text. Read here once into typed values (numbers, yes/no, several choices) and checked with answerIssues,
// so every surface accepts and refuses the same answers with the same words.
import { type Answer, type AnswerIssue, answerIssues, type Question, type QuestionField } from '../../run/question.js';

/** A form's name/value pairs, a field ticked several times (several choices) repeated under one name. */
export type AnswerEntries = Iterable<readonly [string, string]>;

/** The name an HTML form gives the input of `field`, so a post's other fields (csrf, decision) never mix in. */
export const answerInputName = (field: Pick<QuestionField, 'name'>) => `answer.${field.name}`;

/** The answer entries of an HTML form post: its `answer.<field>` pairs, named by field. */
export function formAnswerEntries(form: AnswerEntries): [string, string][] {
  return [...form]
    .filter(([name]) => name.startsWith('answer.'))
    .map(([name, value]): [string, string] => [name.slice('answer.'.length), value]);
}

const TRUE = new Set(['true', 'on', 'yes', '1']);
const FALSE = new Set(['false', 'off', 'no', '0']);
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** The value `texts` give `field`: a number or yes/no read from its text, left as text when it is not one (refused then). */
function fieldValue(field: QuestionField, texts: readonly string[]): Answer[string] | undefined {
  const given = texts.filter((text) => text.trim() !== '');
  if (field.kind === 'choices') return given.length === 0 ? undefined : given;
  // An unticked box is not sent: no value is a no.
  if (field.kind === 'boolean' && given.length === 0) return false;
  if (given.length === 0) return undefined;
  if (given.length > 1) return given;
  const text = given[0]!;
  if (field.kind === 'number') return NUMBER.test(text.trim()) ? Number(text.trim()) : text;
  if (field.kind === 'boolean') {
    const word = text.trim().toLowerCase();
    return TRUE.has(word) ? true : FALSE.has(word) ? false : text;
  }
  return text;
}

/**
 * The answer `entries` give `question`, and every problem with it (`answerIssues`). A name that is no field of the
 * question is kept as given, so it is refused, not dropped.
 *
 * @example
 * const { answer, issues } = readAnswer(request.question, [['region', 'eu'], ['nodes', '3']]);
 * // answer: { region: 'eu', nodes: 3 }; issues: [] when both fit
 */
export function readAnswer(
  question: Question,
  entries: AnswerEntries,
): { readonly answer: Answer; readonly issues: AnswerIssue[] } {
  const texts = new Map<string, string[]>();
  for (const [name, value] of entries) texts.set(name, [...(texts.get(name) ?? []), value]);
  const pairs: [string, Answer[string]][] = [];
  for (const field of question.fields) {
    const value = fieldValue(field, texts.get(field.name) ?? []);
    if (value !== undefined) pairs.push([field.name, value]);
    texts.delete(field.name);
  }
  for (const [name, values] of texts) pairs.push([name, values.length === 1 ? values[0]! : values]);
  // Own properties whatever the name (`__proto__` included), so an unknown one is seen and refused.
  const answer: Answer = Object.fromEntries(pairs);
  return { answer, issues: answerIssues(question, answer) };
}
