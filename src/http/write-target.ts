import type { Context } from 'hono';
import type { z } from 'zod';
import { TargetMismatchError } from '../errors.js';
import { HttpProblem, problem, parseJsonBody } from '../kit/index.js';
import type { AppEnv } from './app-env.js';

interface Target {
  readonly runId?: string | undefined;
  readonly approvalId?: string | undefined;
}

/** A write's body once its target is checked: the fields a handler acts on. */
export type Untargeted<T> = T extends unknown ? Omit<T, 'runId' | 'approvalId'> : never;

/**
 * Parses a write's body (as `parseJsonBody` does) and checks the target it
 * names against the URL's `:runId` and `:approvalId`. A Standard Webhooks
 * signature covers the id, timestamp and body but not the path, so a signed
 * body must name both (else a delivery captured for one run could be replayed
 * to another's URL); with a bearer token they are optional. A missing or
 * different target throws `TargetMismatchError` (400 / 403 `target_mismatch`).
 *
 * @example
 * app.post('/runs/:runId/cancel', ...write, async (c) => {
 *   const body = parseTargetedBody(c, cancelBody); // { reason? }
 * });
 */
export function parseTargetedBody<S extends z.ZodType<Target>>(c: Context<AppEnv>, schema: S): Untargeted<z.output<S>> {
  const { runId, approvalId, ...rest } = parseJsonBody(schema, c.var.rawBody) as Target & Record<string, unknown>;
  const url = { runId: c.req.param('runId') ?? '', approvalId: c.req.param('approvalId') };
  const required = c.var.caller.kind === 'webhook';
  const named: readonly (readonly [string | undefined, string | undefined])[] = [
    [runId, url.runId],
    [approvalId, url.approvalId],
  ];
  for (const [value, expected] of named) {
    if (expected === undefined) continue;
    if (value === undefined ? required : value !== expected) {
      throw new TargetMismatchError(url.runId, url.approvalId, value === undefined ? 'missing' : 'mismatch');
    }
  }
  return rest as Untargeted<z.output<S>>;
}

/**
 * Checks the target a write on a grant, session, rule or request names in its body (`grantId`, `sessionId`, `ruleId`,
 * `requestId`) against the URL's: a Standard Webhooks signature covers the body, not the path, so a signed body must
 * name it (else a captured delivery for one could be replayed to another's URL); with a bearer token it is optional,
 * and checked when sent. Missing from a signed body or different: 400 `target_mismatch`, nothing done.
 */
export function checkNamedTarget(
  c: Context<AppEnv>,
  field: 'grantId' | 'sessionId' | 'ruleId' | 'requestId',
  named: string | undefined,
  expected: string,
): void {
  if (named === undefined ? c.var.caller.kind === 'webhook' : named !== expected) {
    throw new HttpProblem(
      problem(
        400,
        'target_mismatch',
        `A signed write must name its target in the signed body, and it must be the URL's: send "${field}": ${JSON.stringify(expected)}. Nothing was done.`,
        { [field]: expected },
      ),
    );
  }
}
