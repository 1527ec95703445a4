import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { removePrefix } from '../redis/redis-harness.js';

const url = inject('redisUrl');
const run = promisify(execFile);
const example = async (file: string) =>
  (await run(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, REDIS_URL: url! } })).stdout;

describe.skipIf(!url)('the Redis examples of the README', () => {
  // The examples keep their runs for an hour under this prefix: nothing of theirs stays in the Redis the tests used.
  afterAll(async () => {
    const redis = new Redis(url!);
    await removePrefix(redis, 'countersign-example:');
    redis.disconnect();
  });

  it('examples/redis-round-trip.ts pauses in one connection, is decided from another, and ignores the retried delivery', async () => {
    const output = await example('examples/redis-round-trip.ts');
    expect(output).toMatch(/run run_[\w-]+: awaitingApproval/);
    expect(output).toContain('pending: Pay $12.00 to acct-42?');
    expect(output.match(/sent \$12\.00 to acct-42/g)).toHaveLength(1);
    expect(output).toContain('decided: run is completed, answer: Paid acct-42 $12.00.');
    expect(output).toContain('retried delivery: duplicate=true, run is completed');
  });

  it('examples/serverless-resume.ts resumes the run in a fresh process and runs the payment once across two deliveries', async () => {
    const output = await example('examples/serverless-resume.ts');
    const pids = [...output.matchAll(/\[pid (\d+)\]/g)].map((match) => match[1]);
    expect(new Set(pids).size).toBe(2);
    expect(output.match(/sent \$12\.00 to acct-42/g)).toHaveLength(1);
    expect(output).toContain('200 {"status":"completed","duplicate":false,"output":"Paid acct-42 $12.00."}');
    expect(output).toContain('200 {"status":"completed","duplicate":true,"output":"Paid acct-42 $12.00."}');
  });
});
