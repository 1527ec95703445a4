// A question a person answers with typed values instead of a yes: the form every surface renders (choices, text,
// numbers, yes/no, dates), carried and signed with the request, and the one check of an answer against it, run where
// the answer arrives and again where it is recorded.
import { z } from 'zod';

/** One field of a question's answer, as every surface renders it. */
export type QuestionField = {
  /** The answer's key. */
  readonly name: string;
  /** What the person reads. */
  readonly title: string;
  readonly description?: string;
  readonly required: boolean;
} & (
  | { readonly kind: 'choice'; readonly options: readonly string[] }
  | {
      readonly kind: 'choices';
      readonly options: readonly string[];
      readonly minItems?: number;
      readonly maxItems?: number;
    }
  | { readonly kind: 'text' | 'longText'; readonly maxLength?: number; readonly minLength?: number }
  | { readonly kind: 'number'; readonly integer: boolean; readonly minimum?: number; readonly maximum?: number }
  | { readonly kind: 'boolean' }
  /** A calendar date, `YYYY-MM-DD`. */
  | { readonly kind: 'date' }
);

/**
 * A question's form: the fields of the answer (the question itself is the request's description).
 *
 * @example
 * const question: Question = {
 *   fields: [
 *     { name: 'region', title: 'Region', required: true, kind: 'choice', options: ['eu-west-1', 'us-east-1'] },
 *     { name: 'note', title: 'Note for the team', required: false, kind: 'longText', maxLength: 2000 },
 *   ],
 * };
 */
export interface Question {
  readonly fields: readonly QuestionField[];
}

/** An answer: a value per field name. */
export type Answer = { readonly [field: string]: string | number | boolean | readonly string[] };

/** The limits of a form every surface can render (a chat modal holds few fields). */
export const QUESTION_LIMITS = { fields: 10, options: 25, title: 200, text: 4000 } as const;

const base = {
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
  title: z.string().min(1).max(QUESTION_LIMITS.title),
  description: z.string().max(1000).optional(),
  required: z.boolean(),
};
const options = z.array(z.string().min(1).max(100)).min(1).max(QUESTION_LIMITS.options);
const count = z.number().int().min(0).max(QUESTION_LIMITS.options).optional();
const length = z.number().int().min(0).max(QUESTION_LIMITS.text).optional();

/** A question's form as stored with its request. */
export const questionSchema = z.strictObject({
  fields: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({ ...base, kind: z.literal('choice'), options }),
        z.strictObject({ ...base, kind: z.literal('choices'), options, minItems: count, maxItems: count }),
        z.strictObject({ ...base, kind: z.enum(['text', 'longText']), maxLength: length, minLength: length }),
        z.strictObject({
          ...base,
          kind: z.literal('number'),
          integer: z.boolean(),
          minimum: z.number().finite().optional(),
          maximum: z.number().finite().optional(),
        }),
        z.strictObject({ ...base, kind: z.enum(['boolean', 'date']) }),
      ]),
    )
    .min(1)
    .max(QUESTION_LIMITS.fields),
});

/** A problem with one field of an answer. */
export interface AnswerIssue {
  readonly path: string;
  readonly message: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What is wrong with `value` as the answer to `field`, or undefined. */
function fieldIssue(field: QuestionField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'choice':
      return typeof value === 'string' && field.options.includes(value)
        ? undefined
        : `must be one of ${field.options.join(', ')}`;
    case 'choices': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && field.options.includes(item)))
        return `must be a list of ${field.options.join(', ')}`;
      if (new Set(value).size !== value.length) return 'lists an option twice';
      if (field.minItems !== undefined && value.length < field.minItems) return `needs at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `takes at most ${field.maxItems}`;
      return undefined;
    }
    case 'text':
    case 'longText': {
      if (typeof value !== 'string') return 'must be text';
      const max = field.maxLength ?? QUESTION_LIMITS.text;
      if (value.length > max) return `is longer than ${max} characters`;
      if (field.minLength !== undefined && value.length < field.minLength)
        return `is shorter than ${field.minLength} characters`;
      return undefined;
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.integer && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'date':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be a date, YYYY-MM-DD';
  }
}

/** Every problem of `answer` as the answer to `question`: none when it fits (unknown fields are problems too). */
export function answerIssues(question: Question, answer: unknown): AnswerIssue[] {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
    return [{ path: '', message: 'must be an object with a value per field' }];
  const given = answer as Record<string, unknown>;
  const issues: AnswerIssue[] = [];
  const known = new Set(question.fields.map((field) => field.name));
  for (const key of Object.keys(given))
    if (!known.has(key)) issues.push({ path: key, message: 'is not a field of the question' });
  for (const field of question.fields) {
    const value = given[field.name];
    if (value === undefined || value === '') {
      if (field.required) issues.push({ path: field.name, message: 'is required' });
      continue;
    }
    const issue = fieldIssue(field, value);
    if (issue !== undefined) issues.push({ path: field.name, message: issue });
  }
  return issues;
}
