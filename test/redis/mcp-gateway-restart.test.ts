// The approval gateway killed and started again, on the real Redis: `countersign mcp-gateway` spawned in its own
// process group and SIGKILLed with its upstream. A call cut off mid-call: the restarted gateway answers the client's
// retry within waitMs that the call is still running, sends a bounded number of Redis commands while the dead call's
// lease runs (no spin), and asks a person again once the lease ends, with nobody waiting. A call decided while no
// gateway ran: the restarted gateway forwards it by itself. And a run another gateway left is picked up on the timer.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createRuntime, type RunEvent } from 'countersign';
import { createMcpGateway, mcpGatewayAgent } from 'countersign/mcp';
import { createRedisStore } from 'countersign/redis';
import { maxPasses } from '../../src/mcp/gateway-calls.js';
import { callLog, fixtureCommand, stdioFixture } from '../support/mcp-fixture.js';
import { builtScript } from '../support/built.js';
import {
  clientOf,
  closeGateways,
  gatewayWithClient,
  nextPending,
  pausedCall,
  textOf,
} from '../support/mcp-gateway-kit.js';
import { connect, removePrefix, uniquePrefix, until } from './redis-harness.js';

const url = inject('redisUrl');
const cliScript = await builtScript('src/cli/index.ts');
const approvalsToken = 'gateway-restart-approvals-0123456789';
const mcpToken = 'gateway-restart-mcp-token-0123456789';

/** Counts the commands sent on `redis` (a pipeline's commands one by one) from now on. */
function commandCounter(redis: Redis): { count(): number } {
  const target = redis as unknown as { sendCommand: (...args: unknown[]) => unknown };
  const original = target.sendCommand;
  let sent = 0;
  target.sendCommand = function (this: unknown, ...args: unknown[]) {
    sent += 1;
    return original.apply(this, args);
  };
  return { count: () => sent };
}

describe.skipIf(!url)('MCP gateway killed and restarted, on Redis', () => {
  const redis = url ? connect(url) : undefined!;
  // A prefix of its own for each test: a run one test left pending is not another's.
  const prefixes: string[] = [];
  let prefix = '';
  beforeEach(() => {
    prefix = uniquePrefix();
    prefixes.push(prefix);
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await closeGateways();
  });
  afterAll(async () => {
    for (const used of prefixes) await removePrefix(redis, used);
    redis.disconnect();
  });

  /** `countersign mcp-gateway` on the test's Redis prefix and `--port 0`, in its own process group; `kill` SIGKILLs the group. */
  async function spawnGateway(logFile: string, extra: readonly string[]) {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        cliScript,
        'mcp-gateway',
        '--upstream',
        fixtureCommand,
        '--name',
        'fixture',
        '--redis',
        url!,
        '--prefix',
        prefix,
        '--port',
        '0',
        ...extra,
      ],
      {
        env: {
          ...process.env,
          MCP_FIXTURE_LOG: logFile,
          COUNTERSIGN_APPROVALS_TOKEN: approvalsToken,
          COUNTERSIGN_MCP_TOKEN: mcpToken,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const kill = async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      await exited;
    };
    cleanups.push(kill);
    const app = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /MCP \(Streamable HTTP\) at (http:\/\/\S+)\/mcp/.exec(seen);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the gateway exited with ${code} before it served: ${seen}`)));
    });
    const client = new Client({ name: 'restart-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${mcpToken}` } },
      }),
    );
    cleanups.push(() => client.close().catch(() => undefined));
    return { client, kill };
  }

  it("answers the retry of a call cut off by a crash within waitMs, sends a bounded number of Redis commands while the dead call's lease runs, then asks again", async () => {
    const log = callLog();
    const leaseMs = 8_000;
    const rules = join(mkdtempSync(join(tmpdir(), 'countersign-rules-')), 'rules.json');
    writeFileSync(rules, JSON.stringify([{ tool: '*', action: 'allow' }]));
    const first = await spawnGateway(log.file, ['--rules', rules, '--lease-ms', String(leaseMs), '--wait-ms', '60000']);
    // Cut off by the kill: the client is closed after the test.
    void first.client.callTool({ name: 'slow', arguments: { ms: 600_000 } }).catch(() => undefined);
    await until(() => log.calls('slow').length === 1, 'the call reached the upstream', 20_000);
    await first.kill();

    const counted = connect(url!);
    cleanups.push(async () => counted.disconnect());
    const waitMs = 300;
    const followEveryMs = 100;
    const restarted = await createMcpGateway({
      name: 'fixture',
      ...stdioFixture(log.file),
      store: createRedisStore({ redis: counted, prefix }),
      policy: { default: 'allow' },
      waitMs,
      followEveryMs,
    });
    cleanups.push(() => restarted.close());
    const [runId] = await createRedisStore({ redis, prefix }).runsToRecover(Number.MAX_SAFE_INTEGER, 0);
    const dead = await restarted.runtime.get(runId!);
    expect(dead.toolCalls).toMatchObject([{ status: 'executing' }]);
    // The retry must come while the dead call's lease runs, or this test shows nothing.
    expect(dead.toolCalls[0]!.lease!.until).toBeGreaterThan(Date.now() + 2_000);
    const askedAgain = new Promise<RunEvent>((resolve) =>
      restarted.runtime.subscribe((event) => event.type === 'approval-requested' && resolve(event)),
    );

    const commands = commandCounter(counted);
    const startedAt = Date.now();
    // The same client (the CLI's HTTP client is named 'http') retries the identical call; its own time limit only guards a hang.
    const client = await clientOf(restarted, 'http');
    const retry = (await client.callTool({ name: 'slow', arguments: { ms: 600_000 } }, undefined, {
      timeout: 20_000,
    })) as CallToolResult;

    // The client gave up waiting; the lease ends with nobody waiting, and the gateway asks a person again.
    const event = await askedAgain;
    const windowMs = Date.now() - startedAt;
    expect(event).toMatchObject({ runId, request: { toolName: 'slow', outcomeUnknown: true } });
    // At most: the retry's passes (its own bound) and one look per followEveryMs over the window, each at most
    // PER_LOOK commands, plus the one resume that asks again. A loop that spins sends thousands a second.
    const PER_LOOK = 4;
    const RESUME = 40;
    const bound = (maxPasses(waitMs) + Math.ceil(windowMs / followEveryMs) + 2) * PER_LOOK + RESUME;
    expect(commands.count()).toBeLessThanOrEqual(bound);
    expect(textOf(retry)).toBe(
      'The call is still running. Call this tool again with the same arguments to get its result.',
    );
    expect(log.calls('slow')).toHaveLength(1);
  });

  it('forwards a call decided while no gateway ran once a gateway starts again, with no client calling again, and ends its run', async () => {
    const log = callLog();
    // Long enough for the child to pause the run on its approval however busy the machine (the answer wanted is
    // "pending", which it gives after waiting this long): the test cannot stop a child's clock.
    const first = await spawnGateway(log.file, ['--wait-ms', '2000']);
    const answer = (await first.client.callTool({
      name: 'delete_file',
      arguments: { path: '/restart' },
    })) as CallToolResult;
    expect(textOf(answer)).toMatch(/^Approval pending/);
    await first.kill();

    const decider = createRuntime({
      agents: [mcpGatewayAgent({ name: 'fixture' })],
      store: createRedisStore({ redis, prefix }),
    });
    const { runId, request } = await nextPending(decider);
    const recorded = await decider.respond(
      runId,
      { approvalId: request.approvalId, approved: true, approvedBy: 'olga' },
      { mode: 'record' },
    );
    expect(recorded.status).toBe('running');

    await spawnGateway(log.file, ['--wait-ms', '100']);
    await until(() => log.calls('delete_file').length > 0, 'the restarted gateway forwarded the call', 20_000);
    await until(async () => (await decider.get(runId)).status === 'completed', 'the run completed', 20_000);
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/restart' } }]);
  });

  it('picks up on its timer a run another gateway on its store left behind, and carries out its decision with no client waiting', async () => {
    const store = createRedisStore({ redis, prefix });
    const { gateway: survivor, log } = await gatewayWithClient({
      store,
      waitMs: 50,
      followEveryMs: 50,
      recoverEveryMs: 100,
    });
    const left = await createMcpGateway({ name: 'fixture', ...stdioFixture(callLog().file), store, waitMs: 50 });
    const leftClient = await clientOf(left);
    expect(
      textOf(
        (await pausedCall(left.runtime, () =>
          leftClient.callTool({ name: 'delete_file', arguments: { path: '/left' } }),
        )) as CallToolResult,
      ),
    ).toMatch(/^Approval pending/);
    await leftClient.close();
    await left.close();

    const decider = createRuntime({
      agents: [mcpGatewayAgent({ name: 'fixture' })],
      store: createRedisStore({ redis, prefix }),
    });
    const { runId, request } = await nextPending(decider);
    await decider.respond(
      runId,
      { approvalId: request.approvalId, approved: true, approvedBy: 'pia' },
      { mode: 'record' },
    );
    await until(
      async () => (await survivor.runtime.get(runId)).status === 'completed',
      'the surviving gateway carried the run out',
      20_000,
    );
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/left' } }]);
  });
});
