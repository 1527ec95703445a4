// What every surface says about a question, written once: what a field takes (for a prompt, a placeholder, a hint
// under an input), and why an answer was not recorded, field by field in the words the person read on the form.
import type { AnswerIssue, Question, QuestionField } from '../../run/question.js';
import type { Markup } from '../markup.js';

const list = (options: readonly string[]) => options.join(', ');

/**
 * What `field` takes, in a few words: "one of eu, us", "a whole number from 1 to 9", "yes or no", "optional".
 *
 * @example
 * fieldHint({ name: 'nodes', title: 'Nodes', required: true, kind: 'number', integer: true, minimum: 1, maximum: 9 });
 * // 'a whole number from 1 to 9'
 */
export function fieldHint(field: QuestionField): string {
  const optional = field.required ? '' : ' (optional)';
  switch (field.kind) {
    case 'choice':
      return `one of ${list(field.options)}${optional}`;
    case 'choices': {
      const least = field.minItems === undefined ? '' : `, at least ${field.minItems}`;
      const most = field.maxItems === undefined ? '' : `, at most ${field.maxItems}`;
      return `any of ${list(field.options)}${least}${most}${optional}`;
    }
    case 'text':
    case 'longText':
      return `text${field.maxLength === undefined ? '' : `, up to ${field.maxLength} characters`}${optional}`;
    case 'number': {
      const what = field.integer ? 'a whole number' : 'a number';
      const { minimum: min, maximum: max } = field;
      const range =
        min !== undefined && max !== undefined
          ? ` from ${min} to ${max}`
          : min !== undefined
            ? ` of at least ${min}`
            : max !== undefined
              ? ` of at most ${max}`
              : '';
      return `${what}${range}${optional}`;
    }
    case 'boolean':
      return `yes or no${optional}`;
    case 'date':
      return `a date, YYYY-MM-DD${optional}`;
  }
}

/**
 * Why an answer was not recorded, each problem under the title of its field as the form showed it.
 *
 * @example
 * answerRefusal(question, [{ path: 'region', message: 'must be one of eu, us' }], htmlMarkup);
 * // 'Not recorded: Region must be one of eu, us. Correct it and answer again.'
 */
export function answerRefusal(question: Question | undefined, issues: readonly AnswerIssue[], m: Markup): string {
  const titled = issues.map((issue) => {
    const title = question?.fields.find((field) => field.name === issue.path)?.title ?? issue.path;
    return `${title === '' ? 'The answer' : m.strong(m.escape(title))} ${m.escape(issue.message)}`;
  });
  return `Not recorded: ${titled.join('; ')}. Correct it and answer again.`;
}
