import { describe, expect, it } from 'vitest';
import { DeliveryError, retryDelay, withRetries, type RetryPolicy } from '../../src/kit/delivery/index.js';

const policy = (overrides: Partial<RetryPolicy> = {}) => {
  const sleeps: number[] = [];
  return {
    sleeps,
    policy: {
      maxAttempts: 5,
      backoffMs: 100,
      maxBackoffMs: 10_000,
      random: () => 0.999999,
      sleep: async (ms: number) => void sleeps.push(ms),
      ...overrides,
    },
  };
};
const failing = (retryable: boolean, extra: { retryAfterMs?: number } = {}) =>
  new DeliveryError('The service answered HTTP 503', { retryable, ...extra });

describe('withRetries', () => {
  it('tries again after a retryable DeliveryError, with growing waits, and returns what the first success returns', async () => {
    const { sleeps, policy: p } = policy();
    const tries: number[] = [];
    const result = await withRetries(async (tryNumber) => {
      tries.push(tryNumber);
      if (tryNumber < 3) throw failing(true);
      return 'ok';
    }, p);
    expect(result).toBe('ok');
    expect(tries).toEqual([1, 2, 3]);
    expect(sleeps).toEqual([100, 200]);
  });

  it('stops at a final DeliveryError, and at any other error, after one try', async () => {
    for (const error of [failing(false), new TypeError('bug')]) {
      const { sleeps, policy: p } = policy();
      let tries = 0;
      await expect(
        withRetries(async () => {
          tries += 1;
          throw error;
        }, p),
      ).rejects.toBe(error);
      expect(tries).toBe(1);
      expect(sleeps).toEqual([]);
    }
  });

  it('throws the last error after maxAttempts tries', async () => {
    const { sleeps, policy: p } = policy({ maxAttempts: 3 });
    const errors = [failing(true), failing(true), failing(true)];
    let tries = 0;
    await expect(withRetries(async () => Promise.reject(errors[tries++]!), p)).rejects.toBe(errors[2]);
    expect(tries).toBe(3);
    expect(sleeps).toHaveLength(2);
  });

  it('waits what the service asked (Retry-After), capped at maxBackoffMs', async () => {
    const { sleeps, policy: p } = policy({ maxBackoffMs: 60_000 });
    const asked = [7_000, 3_600_000];
    await withRetries(async (tryNumber) => {
      if (tryNumber <= asked.length) throw failing(true, { retryAfterMs: asked[tryNumber - 1]! });
    }, p);
    expect(sleeps).toEqual([7_000, 60_000]);
  });
});

describe('retryDelay', () => {
  it('waits 50 to 100 % of the doubled backoff, never more than maxBackoffMs', () => {
    const base = { maxAttempts: 10, backoffMs: 1000, maxBackoffMs: 5000 };
    for (const random of [0, 0.25, 0.5, 0.999999]) {
      for (const [next, full] of [
        [2, 1000],
        [3, 2000],
        [4, 4000],
        [5, 5000],
        [9, 5000],
      ] as const) {
        const delay = retryDelay(next, { ...base, random: () => random });
        expect(delay).toBeGreaterThanOrEqual(full / 2);
        expect(delay).toBeLessThanOrEqual(full);
      }
    }
    expect(retryDelay(2, { ...base, random: () => 0 })).toBe(500);
    expect(retryDelay(2, { ...base, random: () => 0.999999 })).toBe(1000);
  });
});
