// Setting up one consumer of a Redis Stream consumer group: its name, the group itself, and the timing options
// every reader checks.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ConfigError } from '../../errors.js';
import { asClient, type RedisClient } from './redis-client.js';
import { toStoreError } from './unavailable.js';

/** A consumer name unique to this process and call: `<hostname>:<pid>:<random>`. */
export function defaultConsumerName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** Validates the numeric options every reader shares. */
export function checkTiming(name: string, values: Record<string, number | undefined>): void {
  for (const [option, value] of Object.entries(values)) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new ConfigError(
        `${name}: ${option} must be a positive number of milliseconds or a positive count, got ${String(value)}.`,
      );
    }
  }
}

/** XGROUP CREATE … MKSTREAM; an existing group is fine. */
export async function ensureGroup(redis: RedisClient, key: string, group: string, startId: '0' | '$'): Promise<void> {
  try {
    await asClient(redis).call('XGROUP', 'CREATE', key, group, startId, 'MKSTREAM');
  } catch (error) {
    if (error instanceof Error && /BUSYGROUP/.test(error.message)) return;
    if (error instanceof Error && /WRONGTYPE/.test(error.message)) {
      throw new ConfigError(
        `Cannot create consumer group ${group} on ${key}: ${error.message} The key must be a Redis Stream (or absent).`,
      );
    }
    // Anything else (refused, closed, LOADING, CLUSTERDOWN) is worth retrying.
    throw toStoreError(`create consumer group ${group} on ${key}`, error);
  }
}

/** Redis answered that the group is gone (the stream or the group was deleted). */
export function isNoGroup(error: unknown): boolean {
  return error instanceof Error && /NOGROUP/.test(error.message);
}
