// A question's form from the zod object a developer writes (`requestInput({ answer })`, `askHuman({ answer })`): each
// field one a surface can render, read from the schema's JSON Schema; anything else refused, naming the field.
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { type Question, QUESTION_LIMITS, questionSchema } from './question.js';

type Property = {
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly format?: string;
  readonly title?: string;
  readonly description?: string;
  readonly items?: Property;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
};

/** Text longer than this is asked for in a multi-line box. */
const SHORT_TEXT = 200;

const SUPPORTED =
  'z.enum([...]) (one of several), z.array(z.enum([...])) (several of several), z.string() (short text; .max(n) over 200 for long text), z.number(), z.boolean() or z.iso.date()';

const defined = (value: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined));

/** The field `property` stands for, unchecked (the form's schema checks it), or undefined when no surface renders it. */
function fieldOf(name: string, property: Property, required: boolean): Record<string, unknown> | undefined {
  const common = defined({
    name,
    title: property.title ?? name,
    description: property.description,
    required,
  });
  const strings = (values: readonly unknown[] | undefined) =>
    values?.every((value) => typeof value === 'string') ? (values as string[]) : undefined;
  const choices = strings(property.enum);
  if (choices !== undefined) return { ...common, kind: 'choice', options: choices };
  switch (property.type) {
    case 'array': {
      const options = strings(property.items?.enum);
      return options === undefined
        ? undefined
        : defined({ ...common, kind: 'choices', options, minItems: property.minItems, maxItems: property.maxItems });
    }
    case 'string':
      if (property.format === 'date') return { ...common, kind: 'date' };
      if (property.format !== undefined) return undefined;
      return defined({
        ...common,
        kind: (property.maxLength ?? 0) > SHORT_TEXT ? 'longText' : 'text',
        maxLength: Math.min(property.maxLength ?? QUESTION_LIMITS.text, QUESTION_LIMITS.text),
        minLength: property.minLength,
      });
    case 'number':
    case 'integer':
      return defined({
        ...common,
        kind: 'number',
        integer: property.type === 'integer',
        minimum: property.minimum,
        maximum: property.maximum,
      });
    case 'boolean':
      return { ...common, kind: 'boolean' };
    default:
      return undefined;
  }
}

/**
 * The form of the answers `schema` accepts; throws `ConfigError` naming a field no surface can render, or a form
 * past the limits (10 fields, 25 options).
 */
export function questionOfSchema(schema: unknown, where: string): Question {
  if (!(schema instanceof z.ZodObject))
    throw new ConfigError(`${where}: answer must be a zod object, e.g. z.object({ region: z.enum(['eu', 'us']) }).`);
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Property>;
    required?: readonly string[];
  };
  const required = new Set(json.required ?? []);
  const fields = Object.entries(json.properties ?? {}).map(([name, property]) => {
    const field = fieldOf(name, property, required.has(name));
    if (field === undefined)
      throw new ConfigError(`${where}: answer.${name} is not a field a person can be asked for; use ${SUPPORTED}.`);
    return field;
  });
  const checked = questionSchema.safeParse({ fields });
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new ConfigError(
      `${where}: answer ${issue.path.length > 1 ? `field ${String(fields[issue.path[1] as number]?.['name'] ?? '')} ` : ''}${issue.message} (a question has 1 to ${QUESTION_LIMITS.fields} fields, each with at most ${QUESTION_LIMITS.options} options and a title of up to ${QUESTION_LIMITS.title} characters).`,
    );
  }
  return checked.data as Question;
}
