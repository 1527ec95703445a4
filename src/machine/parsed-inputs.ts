import type { ToolCall } from './types.js';

/**
 * What a tool's input schema made of a call's arguments when the call was
 * evaluated, kept beside the call so running it does not parse the same
 * arguments a second time. Only frozen calls are kept (a call in a snapshot
 * is deeply frozen, so its arguments cannot change after the parse), and a
 * value is handed back only for the same call object and the same schema.
 * Process-local: a run resumed elsewhere parses again.
 */
const parsedInputs = new WeakMap<ToolCall, { readonly schema: unknown; readonly data: unknown }>();

/** Notes that `schema` parsed `call.args` into `data`. */
export function rememberParsedInput(call: ToolCall, schema: unknown, data: unknown): void {
  if (Object.isFrozen(call)) parsedInputs.set(call, { schema, data });
}

/** The value `schema` parsed from `call.args` at evaluation, if this process parsed exactly that call with it. */
export function parsedInputOf(call: ToolCall, schema: unknown): { readonly data: unknown } | undefined {
  const entry = parsedInputs.get(call);
  return entry !== undefined && entry.schema === schema ? entry : undefined;
}
