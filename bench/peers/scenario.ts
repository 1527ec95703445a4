// The one scenario every system runs, and what a contender must provide to be measured.
import type { Message } from 'countersign';

/** The user's request after the prior messages; the fake model answers it with one `delete_file` call. */
export const REQUEST = 'Please delete /tmp/report.csv, it is out of date.';
export const PATH = '/tmp/report.csv';
export const FINAL_ANSWER = 'Deleted /tmp/report.csv.';

/** The steps of one cycle, in order; a cycle calls `lap()` once at the end of each. */
export const STEPS = ['execute (pause)', 'serialize', 'deserialize', 'approve', 'execute (resume)'] as const;

/** Marks the end of the current step. */
export type Lap = () => void;

/** What happened in one probe, in a sentence, found by running it. */
export type Finding = string;

export interface Contender {
  readonly name: string;
  /**
   * Builds the cycle over `prior` messages (converting them to this system's own message format, untimed).
   * The cycle runs to the approval request, stores the paused state as a string, parses it back, approves,
   * resumes to the final answer, checks the tool ran exactly once, and returns the bytes stored at the pause.
   */
  prepare(prior: readonly Message[]): (lap: Lap) => Promise<number>;
  /** The same approved state resumed twice, one resume after the other: how many times the tool runs. */
  duplicateApproval(): Promise<Finding>;
  /** Two calls pending, one answered (approved), then resumed. */
  partialAnswer(): Promise<Finding>;
  /** Is there expiry at all: what the paused state says about it, and what an approval 30 days later does. */
  expiredApproval(): Promise<Finding>;
}

/** Counts a tool's runs, so a cycle can check it ran once and a probe can report how often it ran. */
export function runCounter() {
  let runs = 0;
  return {
    run: (): { deleted: string } => {
      runs++;
      return { deleted: PATH };
    },
    get runs() {
      return runs;
    },
    take(): number {
      const taken = runs;
      runs = 0;
      return taken;
    },
  };
}

/** Throws unless the tool ran exactly once in the cycle that just ended. */
export function expectOneRun(name: string, runs: number): void {
  if (runs !== 1) throw new Error(`${name}: the tool ran ${runs} times in one cycle, expected once`);
}

/** Names of fields in a stored state that could carry an expiry. */
export function expiryFields(stored: string): string[] {
  return [...new Set(stored.match(/"[A-Za-z_]*(?:expir|ttl|deadline)[A-Za-z_]*"/gi) ?? [])];
}

/** Runs `body` with `Date.now` (and `new Date()`) moved `ms` into the future. */
export async function later<T>(ms: number, body: () => Promise<T>): Promise<T> {
  const RealDate = Date;
  const shifted = class extends RealDate {
    constructor(...args: ConstructorParameters<typeof Date> | []) {
      if (args.length === 0) super(RealDate.now() + ms);
      else super(...(args as ConstructorParameters<typeof Date>));
    }
    static override now() {
      return RealDate.now() + ms;
    }
  } as DateConstructor;
  globalThis.Date = shifted;
  try {
    return await body();
  } finally {
    globalThis.Date = RealDate;
  }
}

export const DAYS_30 = 30 * 24 * 60 * 60 * 1000;
