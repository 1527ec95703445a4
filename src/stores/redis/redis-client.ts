// The ioredis client the stream readers and the resume queue take, and the few raw calls they make on it.
import type { Cluster, Redis } from 'ioredis';

/**
 * An ioredis client: a single `Redis` connection or a `Cluster`.
 *
 * @example
 * const redis: RedisClient = new Redis(process.env.REDIS_URL!);
 */
export type RedisClient = Redis | Cluster;

/** The few ioredis calls a reader makes; both `Redis` and `Cluster` have them. */
interface Client {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  duplicate(): Client;
  disconnect(): void;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

export function asClient(redis: RedisClient): Client {
  return redis as unknown as Client;
}
