// Shared by the Redis store suites: connections with a unique key prefix that
// are cleaned up after (never FLUSHALL: the server is shared), runs paused on
// an approval with a chosen history length, and a byte counter on a connection.
import { randomUUID } from 'node:crypto';
import { Redis, type Cluster } from 'ioredis';
import { z } from 'zod';
import { createAgent, defineTool, type AgentSnapshot, type Message, type RunEvent } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

/** Deletes every key under `prefix` (SCAN + UNLINK on each master). */
export async function removePrefix(redis: Redis | Cluster, prefix: string): Promise<void> {
  const nodes: (Redis | Cluster)[] = redis.isCluster ? (redis as Cluster).nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await (node as Redis).scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      // One key per UNLINK: in a cluster, keys of different slots cannot share a command.
      await Promise.all(keys.map((key) => node.unlink(key)));
    } while (cursor !== '0');
  }
}

export function uniquePrefix(): string {
  return `cs-test:${randomUUID()}:`;
}

/** Events written to `${prefix}events`, parsed. */
export async function streamEvents(redis: Redis | Cluster, prefix: string): Promise<RunEvent[]> {
  const entries = await redis.xrange(`${prefix}events`, '-', '+');
  return entries.map(([, fields]) => {
    const index = fields.indexOf('event');
    return JSON.parse(fields[index + 1]!) as RunEvent;
  });
}

/** A fresh connection that never writes to the console and never retries for long. */
export function connect(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  return redis;
}

/** Counts the bytes of every command argument sent through `redis` while `body` runs. */
export async function bytesSent(redis: Redis, body: () => Promise<unknown>): Promise<number> {
  const target = redis as unknown as { sendCommand: (command: { args: unknown[] }, ...rest: unknown[]) => unknown };
  const original = target.sendCommand;
  let bytes = 0;
  target.sendCommand = function (this: unknown, command, ...rest) {
    for (const arg of command.args) bytes += Buffer.isBuffer(arg) ? arg.length : Buffer.byteLength(String(arg));
    return original.call(this, command, ...rest);
  };
  try {
    await body();
  } finally {
    target.sendCommand = original;
  }
  return bytes;
}

/** Earlier conversation: `count` messages of user and assistant turns, about 250 bytes each. */
export function history(count: number): Message[] {
  return Array.from(
    { length: count },
    (_, index): Message => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message ${index}: ${'lorem ipsum dolor sit amet '.repeat(9)}`,
    }),
  );
}

export interface PausedRunOptions {
  /** Approval time to live; no expiry when left out. */
  readonly ttlMs?: number;
  /** Messages before the one that asks for the tool. */
  readonly prior?: number;
  readonly clock?: () => number;
  readonly agentName?: string;
  readonly sessionId?: string;
}

/** An agent with one gated `send_email` tool: pauses on it, then answers 'done'. */
export function emailAgent(options: PausedRunOptions = {}) {
  const tool = defineTool({
    name: 'send_email',
    description: 'Send an email',
    input: z.object({ to: z.string() }),
    execute: ({ to }) => `sent to ${to}`,
    ...(options.ttlMs === undefined ? {} : { approvalTtlMs: options.ttlMs }),
  });
  return createAgent({
    name: options.agentName ?? `redis-${randomUUID().slice(0, 8)}`,
    ...(options.clock ? { clock: options.clock } : {}),
    tools: [tool],
    model: createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn('done')
        : toolCallTurn('send_email', { to: `${randomUUID()}@example.com` }),
    ),
  });
}

/** A run paused on one approval, and the agent that can resume it. */
export async function pausedRun(
  options: PausedRunOptions = {},
): Promise<{ run: AgentSnapshot; agent: ReturnType<typeof emailAgent> }> {
  const agent = emailAgent(options);
  const input: Message[] = [...history(options.prior ?? 0), { role: 'user', content: 'email someone' }];
  const run = await agent.execute({
    input,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  return { run, agent };
}

// CRC16/XMODEM, as Redis Cluster computes key slots.
function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The Cluster slot of a key (hash tag rules included). */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(Buffer.from(key)) % 16384;
}

/** Polls until `check` holds; fails with `what` after `timeoutMs` (a deadlock guard, not a speed assertion). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise and the function that resolves it. */
export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The connection, noting the name of every method called on it: one name per round trip (a pipeline is one). */
export function watchedCommands(redis: Redis, sent: string[]): Redis {
  return new Proxy(redis, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof property === 'string') sent.push(property);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * The connection with every raw command it sends (`call`) noted, and the connections duplicated from it (a reader's
 * blocking connection): how a test sees that a consumer tried to claim, or stopped reading.
 */
export function observed(redis: Redis) {
  const commands: string[] = [];
  const duplicates: Redis[] = [];
  const proxy = new Proxy(redis, {
    get(target, property, receiver) {
      if (property === 'call') {
        return (command: string, ...args: unknown[]) => {
          commands.push(command);
          return (target.call as (...all: unknown[]) => unknown)(command, ...args);
        };
      }
      if (property === 'duplicate') {
        return () => {
          const copy = target.duplicate();
          duplicates.push(copy);
          return copy;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { redis: proxy, commands, duplicates };
}
