import type { Cluster, Redis } from 'ioredis';

/** A command sent in a batch: an index update (`countersignIndexMember`, see `INDEX_MEMBER`), an event for the stream, a head read. */
export type BatchCommand = readonly [
  name: 'zrem' | 'zadd' | 'countersignIndexMember' | 'xadd' | 'hmget',
  key: string,
  ...args: (string | number)[],
];

/**
 * Sends a batch of commands and returns their replies: on one server as one
 * pipeline (one write, one round trip); on a Cluster one by one, since their
 * keys live on different nodes and a Cluster pipeline must stay on one.
 */
export async function sendBatch(redis: Redis | Cluster, commands: readonly BatchCommand[]): Promise<unknown[]> {
  if (commands.length === 0) return [];
  if (redis.isCluster) {
    return Promise.all(
      commands.map(([name, ...args]) =>
        (redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!(...args),
      ),
    );
  }
  const results = (await (redis as Redis).pipeline(commands.map((command) => [...command])).exec()) ?? [];
  const failure = results.find(([error]) => error);
  if (failure) throw failure[0];
  return results.map(([, reply]) => reply);
}
