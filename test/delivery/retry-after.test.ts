import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/kit/delivery/index.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:27:00 GMT');

  it.each([
    ['120', 120_000],
    [' 7 ', 7_000],
    ['0', 0],
    ['1.5', 1_500],
    [1.5, 1_500],
    [0.0001, 1],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 60_000],
    ['Wed, 21 Oct 2015 07:00:00 GMT', 0],
  ] as const)('reads %j as %i ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it.each([
    ['soon'],
    [''],
    ['-5'],
    ['1e3'],
    [-1],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [null],
    [undefined],
  ] as const)('says nothing usable for %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
