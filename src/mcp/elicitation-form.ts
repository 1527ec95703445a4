// The answer form of an upstream server's form-mode elicitation, as a countersign question takes it: its
// requestedSchema (the MCP specification allows only a flat object of strings, numbers, booleans, single and
// multiple choices) as a zod object, each field titled and described as the server wrote it. A string with a format
// no surface asks for (email, uri, date-time) is asked as text; the server checks the answer against its own schema.
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

type RequestedSchema = ElicitRequestFormParams['requestedSchema'];
/** A property of the requested schema, read field by field (the SDK's union names each kind's fields apart). */
interface Property {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** The values of a choice: its `enum`, or the `const` of each `oneOf`/`anyOf` entry. */
function choicesOf(property: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(property['enum'])) return property['enum'].map(String);
  const titled = (property['oneOf'] ?? property['anyOf']) as { const?: unknown }[] | undefined;
  return Array.isArray(titled) ? titled.map((entry) => String(entry.const)) : undefined;
}

/** One field's schema, or undefined for a kind the specification does not allow (the form is then not asked). */
function fieldOf(property: Property): z.ZodType | undefined {
  const raw = property as Record<string, unknown>;
  const choices = choicesOf(raw);
  if (property.type === 'string' && choices !== undefined && choices.length > 0)
    return z.enum(choices as [string, ...string[]]);
  switch (property.type) {
    case 'string': {
      if (property.format === 'date') return z.iso.date();
      const text = z.string();
      const withMin = property.minLength === undefined ? text : text.min(property.minLength);
      return property.maxLength === undefined ? withMin : withMin.max(property.maxLength);
    }
    case 'number':
    case 'integer': {
      let number = property.type === 'integer' ? z.number().int() : z.number();
      if (property.minimum !== undefined) number = number.min(property.minimum);
      if (property.maximum !== undefined) number = number.max(property.maximum);
      return number;
    }
    case 'boolean':
      return z.boolean();
    case 'array': {
      const options = choicesOf((raw['items'] ?? {}) as Record<string, unknown>);
      if (options === undefined || options.length === 0) return undefined;
      let list = z.array(z.enum(options as [string, ...string[]]));
      if (typeof raw['minItems'] === 'number') list = list.min(raw['minItems']);
      if (typeof raw['maxItems'] === 'number') list = list.max(raw['maxItems']);
      return list;
    }
    default:
      return undefined;
  }
}

/** The form as a zod object, or the name of the first field it cannot ask for. */
export function answerFormOf(schema: RequestedSchema): { form: z.ZodObject } | { unsupported: string } {
  const required = new Set(schema.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, property] of Object.entries(schema.properties as Record<string, Property>)) {
    const field = fieldOf(property);
    if (field === undefined) return { unsupported: name };
    const titled = field.meta({
      title: property.title ?? name,
      ...(property.description === undefined ? {} : { description: property.description }),
    });
    shape[name] = required.has(name) ? titled : titled.optional();
  }
  return { form: z.object(shape) };
}
