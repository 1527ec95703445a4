import type { ToolCall } from '../run/types.js';

/**
 * What a tool's input schema made of a call's arguments when the call was
 * evaluated, kept beside the turn's calls so running a call does not parse
 * the same arguments a second time. Only frozen calls are kept (a call in a
 * snapshot is deeply frozen, so its arguments cannot change after the parse),
 * and a value is handed back only for the same call object and the same
 * schema. Process-local: a run resumed elsewhere parses again.
 */
// One weak entry per turn (its list of calls), a plain map inside: a weak entry per call costs more than the parse it saves.
const parsedInputs = new WeakMap<
  readonly ToolCall[],
  Map<ToolCall, { readonly schema: unknown; readonly data: unknown }>
>();

/** Notes that `schema` parsed `call.args` into `data`; `calls` is the turn's list the call is in. */
export function rememberParsedInput(calls: readonly ToolCall[], call: ToolCall, schema: unknown, data: unknown): void {
  if (!Object.isFrozen(call)) return;
  let turn = parsedInputs.get(calls);
  if (turn === undefined) {
    turn = new Map();
    parsedInputs.set(calls, turn);
  }
  turn.set(call, { schema, data });
}

/** The value `schema` parsed from `call.args` at evaluation, if this process parsed exactly that call (of `calls`) with it. */
export function parsedInputOf(
  calls: readonly ToolCall[],
  call: ToolCall,
  schema: unknown,
): { readonly data: unknown } | undefined {
  const entry = parsedInputs.get(calls)?.get(call);
  return entry !== undefined && entry.schema === schema ? entry : undefined;
}
