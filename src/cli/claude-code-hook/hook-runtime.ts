// A runtime on the Redis at --redis for the hook's requests: its request policy the --rules file's rules; the approval
// app and other processes on that Redis see and decide the requests.
import type { PolicyRule } from '../../index.js';
import { createRuntime } from '../../runtime/create-runtime.js';
import { importIoredis } from '../import-ioredis.js';
import type { HookRequests } from './hook-verdict.js';

/** Where the hook asks, and what closes it when the hook has answered. */
export interface HookRuntime {
  readonly runtime: HookRequests;
  close(): Promise<void>;
}

/** A runtime on the Redis at `url` (keys under `prefix`), deciding requests by `rules` first. */
export async function redisHookRuntime(
  url: string,
  { prefix, rules, decisionSecret }: { prefix?: string; rules?: readonly PolicyRule[]; decisionSecret?: string },
): Promise<HookRuntime> {
  const [{ Redis }, { createRedisStore }] = await Promise.all([
    importIoredis('--redis'),
    import('../../stores/redis/index.js'),
  ]);
  const redis = new Redis(url);
  // Failures reach the hook as commands that do not answer in time; ioredis would print them too.
  redis.on('error', () => {});
  const requests = {
    ...(rules === undefined ? {} : { policy: { rules } }),
    ...(decisionSecret ? { decisionSecret } : {}),
  };
  const runtime = createRuntime({
    store: createRedisStore({ redis, ...(prefix === undefined ? {} : { prefix }) }),
    ...(Object.keys(requests).length === 0 ? {} : { requests }),
  });
  return {
    runtime,
    // Every command the hook waits for has answered by now; one Redis never answered is not waited for again.
    close: async () => {
      const quitting = redis.status === 'ready' ? redis.quit().catch(() => undefined) : undefined;
      await Promise.race([quitting, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      redis.disconnect();
    },
  };
}
