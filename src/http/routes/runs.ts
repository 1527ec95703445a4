import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { ExecuteInput, Message, AgentSnapshot } from '../../index.js';
import { type Outcome, runIdForKey, parseJsonBody } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { answerJson } from '../answer-json.js';
import { createKeyOf } from '../create-key.js';
import { recordThenAnswer } from '../record-then-answer.js';
import { runView } from '../run-view.js';
import { cancelBody, startRunBody } from '../schemas.js';
import { parseTargetedBody } from '../write-target.js';
import type { RouteSettings } from './route-settings.js';
import { requestedAs } from '../decided-as.js';

/** `POST /runs`, `GET /runs/:runId` and `POST /runs/:runId/cancel`: a run started, read and cancelled. */
export function runRoutes(settings: RouteSettings): Hono<AppEnv> {
  const { runtime, resumeMode, read, write } = settings;
  const { recordMode, carryOn, accepted } = recordThenAnswer(settings);
  const app = new Hono<AppEnv>();

  app.post('/runs', ...write, async (c) => {
    const body = parseJsonBody(startRunBody, c.var.rawBody);
    runtime.agent(body.agent);
    // A start names its run so that a retry gets the run its first attempt made: by the body's runId, the
    // Idempotency-Key header, or a signed delivery's webhook-id.
    const key = createKeyOf(c, { field: 'runId', sent: body.runId !== undefined }, 'Nothing was started.');
    const runId =
      body.runId ??
      (key === undefined ? `run_${randomUUID()}` : key.from === 'header' ? runIdForKey(key.key) : `run_wh_${key.key}`);
    const requestedBy = requestedAs(c, body.requestedBy);
    const input: ExecuteInput = {
      input: typeof body.input === 'string' ? body.input : (body.input as Message[]),
      runId,
      ...(body.sessionId === undefined ? {} : { sessionId: body.sessionId }),
      ...(requestedBy === undefined ? {} : { requestedBy }),
    };
    const location = { location: `/runs/${encodeURIComponent(runId)}` };
    // The same start again (same run id and input) gets the run its first attempt made; another start, 409 run_exists.
    await runtime.start(body.agent, input, { mode: recordMode });
    if (resumeMode !== 'inline') return accepted(c, runId);
    const outcome: Outcome<AgentSnapshot> = await carryOn(runtime.resume(runId), 'start', runId);
    if (!outcome.done) return accepted(c, runId);
    return answerJson(c, { status: outcome.value.status, run: runView(outcome.value) }, 201, location);
  });

  app.get('/runs/:runId', read, async (c) => c.json(runView(await runtime.get(c.req.param('runId')))));

  app.post('/runs/:runId/cancel', ...write, async (c) => {
    const body = parseTargetedBody(c, cancelBody);
    const run = await runtime.cancel(c.req.param('runId'), body.reason);
    return answerJson(c, { status: run.status, run: runView(run) });
  });

  return app;
}
