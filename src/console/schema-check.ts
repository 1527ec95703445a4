/** One way a value breaks a JSON Schema: where (`/path/to`), and what is wrong. */
export interface SchemaIssue {
  readonly path: string;
  readonly message: string;
}

/** The subset of JSON Schema (draft 2020-12, as zod 4's `z.toJSONSchema` writes it) the editor checks. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
}

const typeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number' && Number.isInteger(value)
        ? 'integer'
        : typeof value;

const typeMatches = (value: unknown, type: string) =>
  typeOf(value) === type || (type === 'number' && typeOf(value) === 'integer');

/**
 * Checks `value` against a tool's input schema in the browser, before an edit is sent (the server checks again with
 * the tool's zod schema, and its answer is the one that counts). Returns every issue found, or none.
 *
 * @example
 * checkSchema({ type: 'object', required: ['path'], properties: { path: { type: 'string' } } }, {}); // [{ path: '/path', message: 'is required' }]
 */
export function checkSchema(schema: JsonSchema, value: unknown, path = ''): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const at = (message: string) => issues.push({ path: path || '/', message });
  const types = schema.type === undefined ? [] : typeof schema.type === 'string' ? [schema.type] : schema.type;
  if (types.length > 0 && !types.some((type) => typeMatches(value, type))) {
    at(`must be ${types.join(' or ')}, not ${typeOf(value)}`);
    return issues;
  }
  if (schema.enum !== undefined && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    at(`must be one of ${JSON.stringify(schema.enum)}`);
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
    at(`must be ${JSON.stringify(schema.const)}`);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (
    alternatives !== undefined &&
    !alternatives.some((alternative) => checkSchema(alternative, value, path).length === 0)
  )
    at('matches none of the allowed shapes');
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength)
      at(`must be at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength)
      at(`must be at most ${schema.maxLength} characters`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      at(`must match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) at(`must be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) at(`must be at most ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      at(`must be more than ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
      at(`must be less than ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      at(`must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      at(`must have at most ${schema.maxItems} items`);
    const items = schema.items;
    if (items !== undefined)
      for (const [index, item] of value.entries()) issues.push(...checkSchema(items, item, `${path}/${index}`));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? [])
      if (!Object.hasOwn(object, name)) issues.push({ path: `${path}/${name}`, message: 'is required' });
    for (const [name, item] of Object.entries(object)) {
      const property = schema.properties?.[name];
      if (property !== undefined) issues.push(...checkSchema(property, item, `${path}/${name}`));
      else if (schema.additionalProperties === false)
        issues.push({ path: `${path}/${name}`, message: 'is not a known argument' });
      else if (typeof schema.additionalProperties === 'object')
        issues.push(...checkSchema(schema.additionalProperties, item, `${path}/${name}`));
    }
  }
  return issues;
}
