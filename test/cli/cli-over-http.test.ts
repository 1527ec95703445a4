import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createRuntime, defineTool } from 'countersign';
import { createApprovalApp, type ServeHandle, serve } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { freePort } from '../support/free-port.js';
import { runCliCaptured } from '../support/cli-run.js';

const token = 'cli-over-http-token-0123456789';
const servers: ServeHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** An approval app on a free port with a signed agent's run waiting for two payments. */
async function runningApp() {
  const paid: string[] = [];
  const pay = defineTool({
    name: 'send_payment',
    description: 'Send a payment',
    input: z.object({ to: z.string() }),
    needsApproval: true,
    execute: async ({ to }) => {
      paid.push(to);
      return `paid ${to}`;
    },
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn('done')
      : toolCallTurn([
          { name: 'send_payment', args: { to: 'acct-1' } },
          { name: 'send_payment', args: { to: 'acct-2' } },
        ]),
  );
  const agent = createAgent({
    name: 'payments',
    model,
    tools: [pay],
    decisionSecret: 'a-decision-secret-of-32-characters!',
  });
  const runtime = createRuntime({ agents: [agent] });
  const server = await serve(createApprovalApp(runtime, { bearerToken: token }), { port: await freePort() });
  servers.push(server);
  const paused = await runtime.start('payments', { input: 'pay both' });
  return { url: server.url, paused, paid };
}

function cli(argv: string[], env: Record<string, string> = {}, input = '') {
  return runCliCaptured(argv, { env, input });
}

describe('the CLI over HTTP (--url, --token)', () => {
  it('lists, shows and approves through the running app, echoing the signatures a signed agent asks for; the run completes', async () => {
    const { url, paused, paid } = await runningApp();
    const [first, second] = paused.pendingApprovals;
    const over = ['--url', url, '--token', token];
    const pending = await cli(['pending', ...over]);
    expect(pending.code).toBe(0);
    expect(pending.out).toContain(`approval ${first!.approvalId}`);
    expect(pending.out).toContain(`approval ${second!.approvalId}`);
    expect((await cli(['show', paused.runId, ...over])).out).toContain(
      `run ${paused.runId}  agent payments\n  status awaitingApproval (awaiting_approval)  version`,
    );

    const one = await cli(['approve', paused.runId, first!.approvalId, '--by', 'alice', ...over]);
    expect(one).toMatchObject({ code: 0, out: 'approved; run is awaitingApproval\n' });
    // The URL and token from the environment, as COUNTERSIGN_URL / COUNTERSIGN_TOKEN.
    const two = await cli(['approve', paused.runId, second!.approvalId, '--by', 'alice'], {
      COUNTERSIGN_URL: url,
      COUNTERSIGN_TOKEN: token,
    });
    expect(two).toMatchObject({ code: 0, out: 'approved; run is completed\n' });
    expect(paid).toEqual(['acct-1', 'acct-2']);
    const shown = JSON.parse((await cli(['show', paused.runId, '--json', ...over])).out) as {
      status: string;
      audit: { by: string }[];
    };
    expect(shown.status).toBe('completed');
    expect(shown.audit.map((entry) => entry.by)).toEqual(['alice', 'alice']);
    const conflict = await cli(['deny', paused.runId, first!.approvalId, ...over]);
    expect(conflict.code).toBe(1);
    expect(conflict.err).toMatch(/^error \[\w+\]: /);
  });

  it('review decides card by card over HTTP and says the app carried the call out', async () => {
    const { url, paused, paid } = await runningApp();
    const review = await cli(['review', '--by', 'bob', '--url', url, '--token', token], {}, 'y\nn\nnot this one\n');
    expect(review.code).toBe(0);
    expect(review.out).toContain(
      `approved once: recorded; the approval app at ${url} runs it once the run's other requests are decided`,
    );
    expect(review.out).toContain(`denied (not this one): the call does not run; run ${paused.runId} is completed`);
    // The two requests were asked at once, so the pending list orders them by id: the one shown first is the one approved.
    const shownFirst = review.out.indexOf('acct-1') < review.out.indexOf('acct-2') ? 'acct-1' : 'acct-2';
    expect(review.out.indexOf('acct-1')).toBeGreaterThan(-1);
    expect(review.out.indexOf('acct-2')).toBeGreaterThan(-1);
    expect(paid).toEqual([shownFirst]);
  });

  it('says what is missing or wrong: no token, a wrong token, nothing listening, a command that needs the runtime', async () => {
    const { url } = await runningApp();
    const noToken = await cli(['pending', '--url', url]);
    expect(noToken.code).toBe(2);
    expect(noToken.err).toContain(
      `the approval app at ${url} needs its bearer token: --token TOKEN or COUNTERSIGN_TOKEN`,
    );
    const wrong = await cli(['pending', '--url', url, '--token', 'not-the-token-at-all']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`[unauthorized]: the approval app at ${url} refused the token`);
    const nobody = await cli(['pending', '--url', `http://127.0.0.1:${await freePort()}`, '--token', token]);
    expect(nobody.err).toMatch(
      /\[app_unreachable\]: nothing answers at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): is the approval app running there \(npm start\)\?/,
    );
    expect((await cli(['resume', 'run_1', '--url', url, '--token', token])).err).toContain(
      'resume needs the runtime itself (--runtime PATH)',
    );
    expect((await cli(['pending'])).err).toContain(
      'say where the approvals are: --url http://127.0.0.1:3000 --token TOKEN',
    );
  });
});
