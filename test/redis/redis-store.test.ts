import { describe, inject } from 'vitest';
import { createRedisStore } from 'countersign/redis';
import { describeStoreContract } from '../support/store-contract.js';
import { connect, removePrefix, streamEvents, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('Redis store', () => {
  describeStoreContract('redis store', async () => {
    const redis = connect(url!);
    const prefix = uniquePrefix();
    const store = createRedisStore({ redis, prefix });
    return {
      store,
      published: () => streamEvents(redis, prefix),
      close: async () => {
        await removePrefix(redis, prefix);
        redis.disconnect();
      },
    };
  });
});
