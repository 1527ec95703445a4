import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { jsonSchema } from './message-schema.js';

/** `ApprovalResponse.scope`: once (default), the rest of the run, every run of the session, every run of the agent. */
export const scopeSchema = z.enum(['once', 'run', 'session', 'agent'], {
  error: "must be 'once', 'run', 'session' or 'agent'",
});

/** `ApprovalResponse.grant` as stored: positive whole bounds, argument patterns as JSON. */
export const grantBoundsSchema = z.strictObject({
  ttlMs: z.number().int().positive().optional(),
  uses: z.number().int().min(1, 'must be at least 1').optional(),
  argsMatch: z.record(z.string().min(1, 'paths must not be empty'), jsonSchema).optional(),
});

/**
 * Refuses a predicate where `argsMatch` takes data, before the schema would call it just "not JSON": a grant is
 * stored and signed, and a function can be neither.
 */
export function assertArgsMatchIsData(argsMatch: unknown, where: string): void {
  const functions =
    typeof argsMatch === 'function' ||
    (typeof argsMatch === 'object' &&
      argsMatch !== null &&
      Object.values(argsMatch).some((value) => typeof value === 'function'));
  if (functions) {
    throw new ConfigError(
      `${where}: grant.argsMatch must be data (a dotted argument path mapped to a string glob or an exact JSON value), not a function: grants are stored and signed, and a function can be neither. For a predicate over the arguments, add a policy rule with \`when\`.`,
    );
  }
}
