// Property tests of grants: whatever the bounds, the clock and the later calls, a grant decides a call only while
// live by the agent clock, at most `uses` times, only for matching arguments and only where its granter may decide.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';
import { testClock } from '../support/test-kit.js';

interface LaterCall {
  readonly env: string;
  readonly waitMs: number;
}

const scenario = fc.record({
  ttlMs: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
  uses: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  pattern: fc.option(fc.constantFrom('dev-*', 'prod', 'dev-?'), { nil: undefined }),
  later: fc.array(
    fc.record({
      env: fc.constantFrom('dev-1', 'dev-22', 'prod', 'staging'),
      waitMs: fc.integer({ min: 0, max: 4_000 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});

function matches(pattern: string | undefined, env: string): boolean {
  if (pattern === undefined) return true;
  if (pattern === 'prod') return env === 'prod';
  return pattern === 'dev-*' ? env.startsWith('dev-') : /^dev-.$/.test(env);
}

describe('grant properties', () => {
  it('a session grant never outlives its ttl or uses, and never covers arguments argsMatch refuses', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ ttlMs, uses, pattern, later }) => {
        const clock = testClock();
        const { run, decide } = grantAgent({ decisionSecret, clock });
        const grantedAt = clock();
        const bounds = {
          ...(ttlMs === undefined ? {} : { ttlMs }),
          ...(uses === undefined ? {} : { uses }),
          ...(pattern === undefined ? {} : { argsMatch: { env: pattern } }),
        };
        const first = await run([{ name: 'deploy', args: { env: 'first' } }], 'chat');
        await decide(first, {
          approved: true,
          approvedBy: 'alice',
          scope: 'session',
          ...(Object.keys(bounds).length === 0 ? {} : { grant: bounds }),
        });
        let spent = 0;
        for (const call of later as LaterCall[]) {
          clock.advance(call.waitMs);
          const snap = await run([{ name: 'deploy', args: { env: call.env } }], 'chat');
          const covered = snap.status === 'completed';
          const live = (ttlMs === undefined || clock() < grantedAt + ttlMs) && (uses === undefined || spent < uses);
          expect(covered).toBe(live && matches(pattern, call.env));
          if (covered) {
            spent += 1;
            expect(snap.audit.at(-1)).toMatchObject({ source: 'grant', by: 'alice' });
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a grant never covers a call whose approvers the granter is not among', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('alice', 'bob', 'carol'),
        fc.subarray(['alice', 'bob', 'carol'], { minLength: 1 }),
        async (granter, approvers) => {
          const { run, decide } = grantAgent({
            decisionSecret,
            policy: {
              rules: [
                {
                  id: 'prod',
                  tool: 'deploy',
                  when: (args: { env?: string }) => args.env === 'prod',
                  action: 'ask',
                  approvers,
                },
              ],
            },
          });
          await decide(await run([{ name: 'deploy', args: { env: 'dev' } }], 'chat'), {
            approved: true,
            approvedBy: granter,
            scope: 'session',
          });
          const prod = await run([{ name: 'deploy', args: { env: 'prod' } }], 'chat');
          expect(prod.status === 'completed').toBe(approvers.includes(granter));
        },
      ),
      { numRuns: 20 },
    );
  });
});
