// The CLI over HTTP: its commands through the approval app's own routes (GET /approvals, GET /runs/:runId, POST
// /runs/:runId/approvals/:approvalId, /grants, /sessions/:sessionId/grants, POST /runs/:runId/cancel), so a reviewer
// decides the runs of a running app (npm start, a gateway's --port, your own) from another terminal.
import { z } from 'zod';
import type { ApprovalResponse } from '../run/types.js';
import type { GrantState } from '../ports/grant-store.js';
import type { PendingPage } from '../ports/snapshot-store.js';
import type { RunView } from '../http/run-view.js';
import {
  acceptedAnswerSchema,
  decisionAnswerSchema,
  grantsAnswerSchema,
  pendingPageSchema,
  problemSchema,
  revokedAnswerSchema,
  runAnswerSchema,
  runViewSchema,
} from '../http/schemas.js';
import { ApprovalAppError } from '../errors.js';
import type { Approvals, Decided } from './approvals.js';
import { UsageError } from '../errors.js';

export interface HttpApprovalsOptions {
  /** The approval app's address, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** Its bearer token. */
  readonly token: string;
}

/** The approval app at `options.url` as the CLI's `Approvals`; an answer that is not what the app sends is refused. */
export function httpApprovals(options: HttpApprovalsOptions): Approvals {
  const base = appUrl(options.url);
  const path = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

  const call = <T>(method: string, route: string, schema: z.ZodType<T>, body?: unknown) =>
    appCall({ base, token: options.token }, method, route, schema, body);

  const getRun = async (runId: string) => (await call('GET', path('runs', runId), runViewSchema)).value as RunView;

  return {
    async pending({ agent, sessionId, limit, cursor }) {
      const query = new URLSearchParams({
        ...(agent === undefined ? {} : { agent }),
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(limit === undefined ? {} : { limit: String(limit) }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      return (await call('GET', `approvals?${query}`, pendingPageSchema)).value as PendingPage;
    },
    get: getRun,
    async respond(runId, response: ApprovalResponse, mode) {
      if (mode !== undefined)
        throw new UsageError(
          "--mode is the approval app's own over --url (createApprovalApp's resumeMode); leave it out",
        );
      const { approvalId, respondedAt: _respondedAt, ...body } = response;
      const { status, value } = await call(
        'POST',
        path('runs', runId, 'approvals', approvalId),
        z.union([decisionAnswerSchema, acceptedAnswerSchema]),
        body,
      );
      const run = 'run' in value ? (value.run as RunView) : await getRun(runId);
      return {
        status: run.status,
        duplicate: value.duplicate ?? false,
        ...(value.vote === undefined ? {} : { vote: value.vote }),
        run,
        where: whereItRuns(base, response.approved, status, run),
        elsewhere: false,
      } satisfies Decided;
    },
    async grants({ sessionId, agent }) {
      const query = new URLSearchParams({
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(agent === undefined ? {} : { agent }),
      });
      return (await call('GET', `grants?${query}`, grantsAnswerSchema)).value.grants as readonly GrantState[];
    },
    async revokeGrant(grantId) {
      return (await call('DELETE', path('grants', grantId), revokedAnswerSchema, {})).value.revoked > 0;
    },
    async clearSession(sessionId) {
      return (await call('DELETE', path('sessions', sessionId, 'grants'), revokedAnswerSchema, {})).value.revoked;
    },
    async cancel(runId, reason) {
      return (await call('POST', path('runs', runId, 'cancel'), runAnswerSchema, { reason })).value.run as RunView;
    },
  };
}

/**
 * One request to the approval app at `app.base`; its answer checked against `schema`, a problem document thrown as
 * `ApprovalAppError`. `signal` aborts it (the fetch's own `AbortError` is thrown then).
 */
export async function appCall<T>(
  app: { base: string; token: string },
  method: string,
  route: string,
  schema: z.ZodType<T>,
  body?: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; value: T }> {
  const { base } = app;
  let answer: Response;
  try {
    answer = await fetch(`${base}/${route}`, {
      method,
      headers: {
        authorization: `Bearer ${app.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const cause = ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message) || 'no answer';
    throw new ApprovalAppError(
      'app_unreachable',
      0,
      `nothing answers at ${base} (${cause}): is the approval app running there (npm start)? Check --url.`,
    );
  }
  const text = await answer.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!answer.ok) throw refusal(base, method, route, answer.status, json);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApprovalAppError(
      'unexpected_answer',
      answer.status,
      `${method} ${base}/${route} answered with something else than the approval app sends: is --url the approval app?`,
    );
  }
  return { status: answer.status, value: parsed.data };
}

/** The error of an answer that is not ok: a refused token, the app's own problem, or something that is not the app. */
function refusal(base: string, method: string, route: string, status: number, json: unknown): ApprovalAppError {
  if (status === 401) {
    return new ApprovalAppError(
      'unauthorized',
      401,
      `the approval app at ${base} refused the token; pass the one it was started with (--token, or COUNTERSIGN_TOKEN; npm start prints it).`,
    );
  }
  const problem = problemSchema.safeParse(json);
  if (problem.success) return new ApprovalAppError(problem.data.code, status, problem.data.detail);
  return new ApprovalAppError(
    'unexpected_answer',
    status,
    `${method} ${base}/${route} answered ${status}, not a problem document: is --url the approval app?`,
  );
}

/** `url` without a trailing slash; refused when it is not http(s) or carries credentials (they go in --token). */
export function appUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url must be the approval app's address, e.g. --url http://127.0.0.1:3000; got ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--url must be an http:// or https:// address; got ${parsed.protocol}`);
  if (parsed.username !== '' || parsed.password !== '')
    throw new UsageError('--url must not carry credentials; pass the token with --token or COUNTERSIGN_TOKEN');
  return parsed.href.replace(/\/+$/, '');
}

/** Where a call decided over HTTP runs: in the approval app's process, now (200) or after the answer (202). */
function whereItRuns(base: string, approved: boolean, status: number, run: RunView): string {
  if (!approved) return `the call does not run; run ${run.runId} is ${run.status}`;
  if (status === 202) return `recorded; the approval app at ${base} carries it out; run ${run.runId} is ${run.status}`;
  if (run.status === 'awaitingApproval')
    return `recorded; the approval app at ${base} runs it once the run's other requests are decided`;
  return `the approval app at ${base} carried it out; run ${run.runId} is ${run.status}`;
}
