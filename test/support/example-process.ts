// An example run as its own process, as a user runs it, with a wait for the lines it prints.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ExampleProcess {
  readonly child: ChildProcess;
  readonly lines: readonly string[];
  /** The first line matching `match`, printed already or still to come; rejects if the example exits first. */
  lineMatching(match: RegExp): Promise<string>;
}

/** Runs `path` with tsx, with `env` added to this process's environment. */
export function runExample(path: string, env: Record<string, string>): ExampleProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { match: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((item) => item.match.test(line))) waiter.resolve(line);
  });
  const lineMatching = (match: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((line) => match.test(line));
      if (seen) return resolve(seen);
      waiters.push({ match, resolve });
      child.once('exit', () => reject(new Error(`${path} exited before printing ${match}: ${lines.join('\n')}`)));
    });
  return { child, lines, lineMatching };
}
