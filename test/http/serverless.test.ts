// Each request is served by a freshly spawned Node process that holds only the
// Redis URL: start a run in one, decide it in another, read it in a third.
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { removePrefix, uniquePrefix } from '../redis/redis-harness.js';
import { SECRET, TOKEN } from './harness.js';

const url = inject('redisUrl');

interface Described {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function invoke(
  request: Described,
  prefix: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/serverless-request.ts'], {
      env: { ...process.env, REDIS_URL: url!, PREFIX: prefix },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the function exited with ${code}: ${stderr}`));
      resolve(JSON.parse(stdout) as { status: number; headers: Record<string, string>; body: string });
    });
    child.stdin.end(JSON.stringify(request));
  });
}

function signedPost(path: string, body: unknown, id = `msg_${Math.random().toString(36).slice(2)}`): Described {
  const text = JSON.stringify(body);
  const now = new Date();
  return {
    method: 'POST',
    url: `https://approvals.example.com${path}`,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign(id, now, text),
    },
    body: text,
  };
}

describe.skipIf(!url)('serverless: one fresh process per request, state only in Redis', () => {
  const prefix = uniquePrefix();
  afterAll(async () => {
    const redis = new Redis(url!);
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  // Four Node processes one after another, each loading tsx and the sources: on a busy 2-core machine one takes
  // seconds, so the test has a deadlock guard of two minutes rather than the usual 30 s.
  it('starts in one process, decides in another, reads in a third; a replay in a fourth gets the first answer', async () => {
    const started = await invoke(signedPost('/runs', { agent: 'files', input: '/var/tmp/cache' }), prefix);
    expect(started.status).toBe(201);
    const run = (JSON.parse(started.body) as { run: { runId: string; pendingApprovals: { approvalId: string }[] } })
      .run;
    const approvalId = run.pendingApprovals[0]!.approvalId;

    const decision = signedPost(
      `/runs/${run.runId}/approvals/${approvalId}`,
      { runId: run.runId, approvalId, approved: true, approvedBy: 'alice' },
      'msg_serverless_decision',
    );
    const decided = await invoke(decision, prefix);
    expect(decided.status).toBe(200);
    expect(JSON.parse(decided.body)).toMatchObject({ status: 'completed', duplicate: false });

    const read = await invoke(
      {
        method: 'GET',
        url: `https://approvals.example.com/runs/${run.runId}`,
        headers: { authorization: `Bearer ${TOKEN}` },
      },
      prefix,
    );
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({
      status: 'completed',
      output: 'done: {"deleted":"/var/tmp/cache"}',
      audit: [{ approvalId, decision: 'approved', by: 'alice' }],
    });

    const replayed = await invoke(decision, prefix);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toBe(decided.body);
    expect(replayed.headers['webhook-replayed']).toBe('true');
  }, 120_000);
});
