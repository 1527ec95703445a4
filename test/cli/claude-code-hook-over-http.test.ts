// `countersign hook claude-code --url URL`: the hook asks a running approval app over its request API (POST
// /approvals, the long poll, the cancel) on a loopback socket, with the token from COUNTERSIGN_TOKEN; the app's
// runtime holds the request and its policy decides it.
import { createRuntime, type Runtime } from 'countersign';
import { createApprovalApp, serve } from 'countersign/http';
import { afterEach, describe, expect, it } from 'vitest';
import { bashPayload, decideNext, preToolUse } from '../support/claude-code-hook.js';
import { runCliCaptured } from '../support/cli-run.js';

const token = 'hook-over-http-token-0123456789';
const servers: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function appOf(runtime: Runtime): Promise<string> {
  const server = await serve(createApprovalApp(runtime, { bearerToken: token }), { port: 0 });
  servers.push(server);
  return server.url;
}

const hook = (url: string, input: unknown, args: string[] = [], env = { COUNTERSIGN_TOKEN: token }) =>
  runCliCaptured(['hook', 'claude-code', '--url', url, ...args], { input: JSON.stringify(input), env });

describe('countersign hook claude-code --url', () => {
  it("asks the approval app and answers allow with the person's edit once they approve it there", async () => {
    const runtime = createRuntime({});
    const url = await appOf(runtime);
    const decided = decideNext(runtime, () => ({
      approved: true,
      approvedBy: 'alice',
      args: { command: 'echo hello > file', description: 'Write hi to file' },
    }));
    const { code, out } = await hook(url, bashPayload);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Approved by alice in countersign',
        updatedInput: { command: 'echo hello > file', description: 'Write hi to file' },
      },
    });
    expect((await decided).sessionId).toBe(bashPayload['session_id']);
  });

  it('answers ask when nobody decides in time, the request withdrawn in the app; its rules decide at once', async () => {
    const runtime = createRuntime({
      requests: {
        policy: {
          rules: [
            { id: 'no-curl', tool: 'Bash', when: (args) => String(args.command).startsWith('curl'), action: 'deny' },
          ],
        },
      },
    });
    const url = await appOf(runtime);
    const { out } = await hook(url, preToolUse('Bash', { command: 'make' }, { session: 'http-1', id: 't1' }), [
      '--wait-ms',
      '1000',
    ]);
    expect(JSON.parse(out)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask' } });
    expect((await runtime.pending()).items).toEqual([]);
    const denied = await hook(
      url,
      preToolUse('Bash', { command: 'curl https://x.example' }, { session: 'http-1', id: 't2' }),
    );
    expect(JSON.parse(denied.out)).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/\(rule no-curl\)/),
      },
    });
  });

  it('fails with a non-blocking error when the app refuses the token or does not answer, and needs a token', async () => {
    const url = await appOf(createRuntime({}));
    expect(await hook(url, bashPayload, [], { COUNTERSIGN_TOKEN: 'wrong-token-0123456789' })).toMatchObject({
      code: 1,
      err: expect.stringMatching(/refused the token/),
    });
    expect(await hook('http://127.0.0.1:1', bashPayload)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/nothing answers at/),
    });
    expect(await hook(url, bashPayload, [], {} as { COUNTERSIGN_TOKEN: string })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/needs its bearer token: COUNTERSIGN_TOKEN/),
    });
  });
});
