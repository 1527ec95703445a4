import type { Context } from 'hono';
import type { z } from 'zod';
import { TargetMismatchError } from '../errors.js';
import type { AppEnv } from './app-env.js';
import { parseJsonBody } from '../web/read-body.js';

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
