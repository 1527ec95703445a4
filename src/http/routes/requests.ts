import { Hono } from 'hono';
import { type ApprovalAsk, type RequestHandle, type Runtime, REQUEST_AGENT_NAME } from '../../index.js';
import { approvalAskSchema, HttpProblem, parseJsonBody, parseWith, problem } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { answerJson } from '../answer-json.js';
import { createKeyOf } from '../create-key.js';
import { requestCancelBody, requestWaitQuery } from '../request-schemas.js';
import { checkNamedTarget } from '../write-target.js';
import type { RouteSettings } from './route-settings.js';

/**
 * `POST /approvals`, `GET /approvals/:requestId` and `POST /approvals/:requestId/cancel`: a request from a caller
 * outside the agent loop (`runtime.requestApproval`) asked, read or waited for, and withdrawn. It is decided like any
 * approval, with `POST /runs/:runId/approvals/:approvalId` (a request's id is its run's).
 */
export function requestRoutes(settings: RouteSettings): Hono<AppEnv> {
  const { runtime, read, write } = settings;
  const app = new Hono<AppEnv>();

  app.post('/approvals', ...write, async (c) => {
    const ask = parseJsonBody(approvalAskSchema, c.var.rawBody) as ApprovalAsk;
    // Idempotent by the body's key, the Idempotency-Key header, or a signed delivery's webhook-id.
    const key = createKeyOf(c, { field: 'key', sent: ask.key !== undefined }, 'Nothing was asked.');
    const keyed = key === undefined ? ask : { ...ask, key: key.from === 'header' ? key.key : `webhook:${key.key}` };
    // The same ask again gets the request its first attempt made; another ask with the key, 409 run_exists.
    const handle = await runtime.requestApproval(keyed);
    return answerJson(c, await handle.status(), 201, { location: `/approvals/${encodeURIComponent(handle.id)}` });
  });

  app.get('/approvals/:requestId', read, async (c) => {
    const { waitMs } = parseWith(requestWaitQuery, c.req.query(), 'query');
    const handle = await requestNamed(runtime, c.req.param('requestId'));
    // The client's going away aborts the request's signal, which ends the wait.
    const state =
      waitMs === 0 ? await handle.status() : await handle.wait({ timeoutMs: waitMs, signal: c.req.raw.signal });
    return c.json(state);
  });

  app.post('/approvals/:requestId/cancel', ...write, async (c) => {
    const requestId = c.req.param('requestId');
    const body = parseJsonBody(requestCancelBody, c.var.rawBody);
    checkNamedTarget(c, 'requestId', body.requestId, requestId);
    const handle = await requestNamed(runtime, requestId);
    return answerJson(c, await handle.cancel(body.reason));
  });

  return app;
}

/** The handle of request `id`: an unknown id is a 404 `run_not_found`, the id of a run that is no request a 404 `not_a_request`. */
async function requestNamed(runtime: Runtime, id: string): Promise<RequestHandle> {
  const run = await runtime.get(id);
  if (run.agentName !== REQUEST_AGENT_NAME) {
    throw new HttpProblem(
      problem(
        404,
        'not_a_request',
        `${id} is a run of an agent, not a request made with POST /approvals: read it with GET /runs/{runId} and decide it with POST /runs/{runId}/approvals/{approvalId}.`,
        { requestId: id },
      ),
    );
  }
  return runtime.approvalRequest(id);
}
