import { isCountersignError, type CountersignError } from '../../errors/base.js';
import { HttpProblem, type Problem } from '../../errors/http.js';

/** A problem plus the headers its answer needs (`Retry-After`, `WWW-Authenticate`). */
export interface ProblemAnswer {
  readonly problem: Problem;
  readonly headers: Readonly<Record<string, string>>;
}

const titles: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * The `type` URI of a problem code.
 *
 * @example
 * problemType('decision_conflict'); // 'urn:countersign:problem:decision_conflict'
 */
export function problemType(code: string): string {
  return `urn:countersign:problem:${code}`;
}

/**
 * Builds a problem body.
 *
 * @example
 * problem(404, 'not_found', 'No route GET /nope.'); // { type: 'urn:countersign:problem:not_found', title: 'Not Found', status: 404, ... }
 */
export function problem(
  status: number,
  code: string,
  detail: string,
  data: Readonly<Record<string, unknown>> = {},
): Problem {
  const body: Record<string, unknown> = {
    type: problemType(code),
    title: titles[status] ?? 'Error',
    status,
    code,
    detail,
  };
  for (const [key, value] of Object.entries(data)) if (!(key in body)) body[key] = value;
  return body as Problem;
}

/** Seconds a client should wait before retrying when the store is unavailable. */
export const STORE_RETRY_AFTER_SECONDS = 2;

type Field<E> = (error: E) => Record<string, unknown>;

/** Status and the extra, non-secret fields of each countersign error code. */
const byCode: Readonly<
  // biome-ignore lint/suspicious/noExplicitAny: each entry reads the fields of its own error class
  Record<string, { readonly status: number | ((error: CountersignError) => number); readonly data?: Field<any> }>
> = {
  invalid_config: { status: 400 },
  unknown_approval: {
    status: 404,
    data: (e: { runId: string; approvalId: string }) => ({ runId: e.runId, approvalId: e.approvalId }),
  },
  run_not_found: { status: 404, data: (e: { runId: string }) => ({ runId: e.runId }) },
  agent_not_found: { status: 404, data: (e: { agentName: string }) => ({ agentName: e.agentName }) },
  approver_not_allowed: { status: 403, data: (e: { approvalId: string }) => ({ approvalId: e.approvalId }) },
  decision_not_offered: {
    status: 403,
    data: (e: { approvalId: string; asked: string; offered: readonly string[] }) => ({
      approvalId: e.approvalId,
      asked: e.asked,
      offered: e.offered,
    }),
  },
  decision_conflict: {
    status: 409,
    data: (e: { approvalId: string; winner: unknown }) => ({ approvalId: e.approvalId, winner: e.winner }),
  },
  run_not_awaiting_approval: {
    status: 409,
    data: (e: { runId: string; approvalId: string; status: string }) => ({
      runId: e.runId,
      approvalId: e.approvalId,
      runStatus: e.status,
    }),
  },
  version_conflict: { status: 409, data: (e: { runId: string }) => ({ runId: e.runId }) },
  run_exists: { status: 409, data: (e: { runId: string }) => ({ runId: e.runId }) },
  tool_not_found: { status: 409, data: (e: { toolName: string }) => ({ toolName: e.toolName }) },
  approval_expired: {
    status: 410,
    data: (e: { approvalId: string; expiresAt: number; respondedAt: number }) => ({
      approvalId: e.approvalId,
      expiresAt: e.expiresAt,
      respondedAt: e.respondedAt,
    }),
  },
  invalid_link_token: {
    status: (e) =>
      (e as unknown as { reason: string }).reason === 'expired' ||
      (e as unknown as { reason: string }).reason === 'used'
        ? 410
        : 401,
    data: (e: { reason: string }) => ({ reason: e.reason }),
  },
  invalid_edit: {
    status: 422,
    data: (e: { approvalId: string; issues: unknown }) => ({ approvalId: e.approvalId, issues: e.issues }),
  },
  invalid_answer: {
    status: 422,
    data: (e: { approvalId: string; issues: unknown }) => ({ approvalId: e.approvalId, issues: e.issues }),
  },
  invalid_signature: { status: 400, data: (e: { approvalId: string }) => ({ approvalId: e.approvalId }) },
  call_not_covered: {
    status: 403,
    data: (e: { toolCallId: string; approvalId: string | undefined }) => ({
      toolCallId: e.toolCallId,
      ...(e.approvalId === undefined ? {} : { approvalId: e.approvalId }),
    }),
  },
  value_too_deep: { status: 422, data: (e: { maxDepth: number }) => ({ maxDepth: e.maxDepth }) },
  store_unavailable: { status: 503 },
  target_mismatch: {
    status: (e) => ((e as unknown as { reason: string }).reason === 'missing' ? 400 : 403),
    data: (e: { runId: string; approvalId: string | undefined; reason: string }) => ({
      runId: e.runId,
      ...(e.approvalId === undefined ? {} : { approvalId: e.approvalId }),
      reason: e.reason,
    }),
  },
};

/**
 * The answer for any error: `HttpProblem`s as they are, countersign errors
 * by their `code` (see the table in docs/http.md), anything else as a 500
 * `internal` problem with no detail of the error (`unexpected` is true then,
 * so the caller reports it).
 *
 * @example
 * const { problem, headers, unexpected } = problemFor(new RunNotFoundError('run_1'));
 * problem.status; // 404
 */
export function problemFor(error: unknown): ProblemAnswer & { readonly unexpected: boolean } {
  if (error instanceof HttpProblem) return { problem: error.problem, headers: error.headers, unexpected: false };
  if (isCountersignError(error)) {
    const entry = byCode[error.code];
    if (entry) {
      const status = typeof entry.status === 'function' ? entry.status(error) : entry.status;
      const headers: Record<string, string> =
        status === 503 ? { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) } : {};
      return {
        problem: problem(status, error.code, error.message, entry.data?.(error) ?? {}),
        headers,
        unexpected: false,
      };
    }
  }
  return {
    problem: problem(500, 'internal', 'The server failed to handle this request; it was reported. Retry later.'),
    headers: {},
    unexpected: true,
  };
}

/**
 * A `Response` carrying a problem as `application/problem+json`.
 *
 * @example
 * return problemResponse(problem(401, 'unauthorized', 'Send a bearer token.'), { 'WWW-Authenticate': 'Bearer' });
 */
export function problemResponse(body: Problem, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { ...headers, 'content-type': 'application/problem+json', 'cache-control': 'no-store' },
  });
}
