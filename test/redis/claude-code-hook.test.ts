// `countersign hook claude-code --redis URL` as Claude Code runs it: a child process with the hook's input on stdin,
// decided by a person over the approval app of another runtime on the same Redis (a real socket), its answer on
// stdout; the request withdrawn in Redis when nobody decides in time; and the --rules file deciding at once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { serveApprovalApp, type ServedApp } from '../support/approval-app-on-redis.js';
import { requestIdForKey } from '../../src/runtime/request-approval.js';
import { builtScript } from '../support/built.js';
import { bashPayload, preToolUse } from '../support/claude-code-hook.js';
import { runCliCaptured } from '../support/cli-run.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const cliScript = await builtScript('src/cli/index.ts');

/** The hook as a child process: `input` on its stdin; resolves with its exit code and output once it exits. */
function hookProcess(args: string[], input: unknown): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [cliScript, 'hook', 'claude-code', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end(JSON.stringify(input));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

describe.skipIf(!url)('the Claude Code hook on Redis', () => {
  const redis = url ? connect(url) : undefined!;
  const prefix = uniquePrefix();
  let app: ServedApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('answers allow in a child process once a person approves over the approval app on the same Redis', async () => {
    app = await serveApprovalApp(redis, prefix);
    const answer = hookProcess(['--redis', url!, '--prefix', prefix, '--wait-ms', '20000'], bashPayload);
    const entry = await app.nextPending('Bash');
    expect(entry.request).toMatchObject({
      args: { command: 'echo hi > file', description: 'Write hi to file' },
      description: 'Run echo hi > file',
    });
    expect(await app.decide(entry, { approved: true, approvedBy: 'hana' })).toBe(200);
    const { code, out } = await answer;
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Approved by hana in countersign',
      },
    });
  });

  it('answers ask when nobody decides within --wait-ms, and the request in Redis is withdrawn', async () => {
    const input = preToolUse('Bash', { command: 'make release' }, { session: 'redis-ask', id: 'toolu_ask' });
    const { code, out } = await hookProcess(['--redis', url!, '--prefix', prefix, '--wait-ms', '1000'], input);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask' } });
    const runtime = createRuntime({ store: createRedisStore({ redis, prefix }) });
    expect((await runtime.pending({ sessionId: 'redis-ask' })).items).toEqual([]);
    const withdrawn = runtime.approvalRequest(requestIdForKey('claude-code:redis-ask:toolu_ask'));
    expect(await withdrawn.status()).toMatchObject({ status: 'cancelled', approved: false });
  });

  it('allows and denies at once by the --rules file, asking nobody', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-hook-rules-'));
    const rules = join(dir, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify([
        { id: 'read-anything', tool: 'Read', action: 'allow' },
        { id: 'no-web', tool: 'WebFetch', action: 'deny', reason: 'no network from agents' },
      ]),
    );
    const run = (input: unknown) =>
      runCliCaptured(['hook', 'claude-code', '--redis', url!, '--prefix', prefix, '--rules', rules], {
        input: JSON.stringify(input),
      });
    const read = await run(preToolUse('Read', { file_path: '/etc/hosts' }, { session: 'rules', id: 'r1' }));
    expect(JSON.parse(read.out)).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'allow',
        permissionDecisionReason: 'Allowed by countersign rule read-anything',
      },
    });
    const fetched = await run(
      preToolUse('WebFetch', { url: 'https://x.example', prompt: 'p' }, { session: 'rules', id: 'r2' }),
    );
    expect(JSON.parse(fetched.out)).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(
          /^The countersign policy refused this call \(rule no-web\): no network from agents\./,
        ),
      },
    });
    const runtime = createRuntime({ store: createRedisStore({ redis, prefix }) });
    expect((await runtime.pending({ sessionId: 'rules' })).items).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});
