// How the runtime's operations check what a caller passed: one zod parse whose refusal names the argument.
import { z } from 'zod';
import { parseOptions } from '../options.js';

export const runIdSchema = z.string().min(1, 'is empty').max(256, 'is longer than 256 characters');

/** `value` checked against `schema`, or a `ConfigError` naming `where` (and `hint`, what to pass instead). */
export function parseArgument<T>(schema: z.ZodType<T>, value: unknown, where: string, hint = ''): T {
  return parseOptions(schema, value, where, { subject: 'argument', hint: hint.trim() });
}
