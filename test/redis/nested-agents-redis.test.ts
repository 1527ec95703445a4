// A nested pause stored in Redis resumes in another process: the parent run, with its sub-agent's run inside it, is
// read back there, decided and resumed; the inner call runs there once.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { deployer, lead, type RunLog } from '../support/nested-agents.js';
import { removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const root = fileURLToPath(new URL('../../', import.meta.url));

function runChild(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/nested-in-child.ts'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited with ${code}: ${err}`))));
  });
}

describe.skipIf(!url)('sub-agents on Redis', () => {
  const prefix = uniquePrefix();
  const redis = new Redis(url!);
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('a nested pause made here is decided and resumed in a fresh process; the inner call runs there once', async () => {
    const log: RunLog = [];
    const runtime = createRuntime({ agents: [lead([deployer(log)])], store: createRedisStore({ redis, prefix }) });
    const paused = await runtime.start('lead', { input: 'ship 1.4' });
    expect(paused.status).toBe('awaitingApproval');

    const report = JSON.parse(await runChild({ REDIS_URL: url!, PREFIX: prefix, RUN_ID: paused.runId }));

    expect(report.pid).not.toBe(process.pid);
    expect(report).toMatchObject({ status: 'completed', output: 'deployer: deployed 1.4', ran: ['deploy:1.4'] });
    expect(report.path).toEqual([expect.objectContaining({ agentName: 'deployer', toolName: 'deployer' })]);
    expect(log).toEqual([]);
    const done = await runtime.get(paused.runId);
    expect(done.status).toBe('completed');
    expect(done.subRuns?.[0]?.audit.find((entry) => entry.source === 'human')).toMatchObject({
      by: 'child-approver',
      toolName: 'deploy',
    });
  });
});
