// Personal tokens on Redis: shared by every process of the app (a revoke in one refuses the token in another at
// once), and only the hash of a token's secret is ever written.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, createRuntime } from 'countersign';
import { createRedisPersonTokenStore } from 'countersign/redis';
import { removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('createRedisPersonTokenStore', () => {
  const prefix = uniquePrefix();
  const one = new Redis(url!);
  const two = new Redis(url!);
  afterAll(async () => {
    await removePrefix(one, prefix);
    await Promise.all([one.quit(), two.quit()]);
  });

  it('keeps hashes only; a token issued in one process works, is listed and is revoked in another', async () => {
    const first = createRuntime({ personTokens: createRedisPersonTokenStore({ redis: one, prefix }) });
    const second = createRuntime({ personTokens: createRedisPersonTokenStore({ redis: two, prefix }) });
    const { token, record } = await first.personTokens!.issue({ person: 'ana', label: 'ci' });
    const raw = await one.hgetall(`${prefix}person-tokens`);
    expect(Object.keys(raw)).toEqual([record.id]);
    expect(raw[record.id]).not.toContain(token.slice(22));
    expect(await second.personTokens!.verify(token)).toEqual(record);
    expect(await second.personTokens!.list()).toEqual([record]);
    await second.personTokens!.revoke(record.id);
    expect(await first.personTokens!.verify(token)).toBeUndefined();
    expect((await first.personTokens!.list())[0]).toMatchObject({ id: record.id, revokedAt: expect.any(Number) });
  });

  it('refuses a second token under an id already kept, and reads a value that is not JSON as a ConfigError', async () => {
    const store = createRedisPersonTokenStore({ redis: one, prefix });
    const token = { id: 'BBBBBBBBBBBBBBBB', person: 'bo', createdAt: 1, hash: 'h' };
    await store.add(token);
    expect(await store.add({ ...token, person: 'mallory' }).catch((error: unknown) => error)).toBeInstanceOf(
      ConfigError,
    );
    expect(await store.get(token.id)).toEqual(token);
    await one.hset(`${prefix}person-tokens`, 'CCCCCCCCCCCCCCCC', 'not json');
    expect(await store.get('CCCCCCCCCCCCCCCC').catch((error: unknown) => error)).toBeInstanceOf(ConfigError);
  });
});
