import { Hono } from 'hono';
import type { ApprovalResponse } from '../../index.js';
import { parseWith } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { answerJson } from '../answer-json.js';
import { blanketDecisions } from '../blanket-decisions.js';
import { recordBatch } from '../record-batch.js';
import { recordThenAnswer } from '../record-then-answer.js';
import { runView } from '../run-view.js';
import { batchBody, decisionBody, pendingQuery } from '../schemas.js';
import { parseTargetedBody } from '../write-target.js';
import type { RouteSettings } from './route-settings.js';
import { decidedAs } from '../decided-as.js';

/** A response with `approvedBy` as the caller's credential says (see `decidedAs`). */
function withDecider<T extends { readonly approvedBy?: string | undefined }>(
  response: T,
  approvedBy: string | undefined,
): T {
  const { approvedBy: _named, ...rest } = response;
  return (approvedBy === undefined ? rest : { ...rest, approvedBy }) as T;
}

/** `GET /approvals` and the decisions: one (`POST /runs/:runId/approvals/:approvalId`) or a batch (`POST /runs/:runId/approvals`). */
export function approvalRoutes(settings: RouteSettings): Hono<AppEnv> {
  const { runtime, resumeMode, readPending, write, decide, report, identity } = settings;
  const { recordMode, carryOn, accepted, decide: decideAndAnswer } = recordThenAnswer(settings);
  const app = new Hono<AppEnv>();

  app.get('/approvals', readPending, async (c) => {
    const query = parseWith(pendingQuery, c.req.query(), 'query');
    const page = await runtime.pending({
      ...(query.agent === undefined ? {} : { agent: query.agent }),
      ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId }),
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json({ items: page.items, ...(page.cursor === undefined ? {} : { cursor: page.cursor }) });
  });

  app.post('/runs/:runId/approvals/:approvalId', ...decide, async (c) => {
    const runId = c.req.param('runId');
    const body = parseTargetedBody(c, decisionBody);
    const named = body as Omit<ApprovalResponse, 'approvalId'>;
    const response: ApprovalResponse = withDecider(
      { approvalId: c.req.param('approvalId'), ...named },
      decidedAs(c, named.approvedBy, identity),
    );
    return decideAndAnswer(c, runId, response);
  });

  app.post('/runs/:runId/approvals', ...write, async (c) => {
    const runId = c.req.param('runId');
    const body = parseTargetedBody(c, batchBody);
    const run = await runtime.get(runId);
    let items: ApprovalResponse[];
    if ('decisions' in body) {
      items = body.decisions.map((decision) =>
        withDecider(decision as ApprovalResponse, decidedAs(c, decision.approvedBy, identity)),
      );
    } else {
      items = blanketDecisions(
        run,
        { ...body, approved: 'approveAll' in body, approvedBy: decidedAs(c, body.approvedBy, identity)! },
        runtime.agent(run.agentName).settings.decisionSecret !== undefined,
      );
    }
    // Each decision is recorded on its own, then the run resumes once: here (inline), on a worker (enqueue: only the
    // decision that makes the run ready puts it on the queue), or in the process that follows it (record).
    const batch = await recordBatch(runtime, run, items, recordMode, (error) =>
      report(error, { operation: 'request', runId, method: c.req.method, path: c.req.path }),
    );
    const { results, recorded } = batch;
    let latest = batch.latest;
    if (recorded && latest.status === 'running' && resumeMode !== 'inline') return accepted(c, runId, { results });
    if (recorded && latest.status === 'running') {
      const outcome = await carryOn(runtime.resume(runId), 'resume', runId);
      if (!outcome.done) return accepted(c, runId, { results });
      latest = outcome.value;
    }
    return answerJson(c, { status: latest.status, run: runView(latest), results });
  });

  return app;
}
