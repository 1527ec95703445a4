// What every suite shares: one clock tests move by hand, one agent factory, and the error a call threw.
import { randomUUID } from 'node:crypto';
import { createAgent, type AgentConfig } from 'countersign';

/** A clock tests move by hand; never sleeps. */
export interface TestClock {
  (): number;
  advance(ms: number): number;
  set(ms: number): void;
}

export function testClock(start = Date.UTC(2026, 0, 1, 12, 0, 0, 0)): TestClock {
  let now = start;
  const clock = (() => now) as TestClock;
  clock.advance = (ms) => (now += ms);
  clock.set = (ms) => {
    now = ms;
  };
  return clock;
}

/** The error `body` threw; fails the test when it threw nothing. */
export function thrown(body: () => unknown): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

export type TestAgentConfig = Omit<AgentConfig, 'name'> & { name?: string };

/** An agent with a unique name, so runs, events and stored rules of different tests never share an agent name. */
export function testAgent(config: TestAgentConfig) {
  return createAgent({ name: config.name ?? `agent-${randomUUID().slice(0, 8)}`, ...config });
}
