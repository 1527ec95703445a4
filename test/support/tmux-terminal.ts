// A program run in a real pseudo-terminal (a detached tmux session on a socket of its own): what a person would see,
// and the keys they would press. The shell prints the exit status after the program (tmux does not always record it).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const TMUX = '/usr/bin/tmux';
export const hasTmux = existsSync(TMUX);

export interface Terminal {
  /** Everything the program printed so far (scrollback included); with `colour`, its SGR escapes too. */
  screen(colour?: boolean): Promise<string>;
  /** Keys as tmux names them: `y`, `Enter`, `C-c`. */
  press(...keys: string[]): Promise<void>;
  /** Text typed as it is. */
  type(text: string): Promise<void>;
  /** Where the screen ends now: pass it to `waitFor` to look only at what comes after. */
  mark(): Promise<number>;
  /** What the screen shows after `after`, once it matches; throws with the screen if it does not within 20 s. */
  waitFor(expected: string | RegExp, after?: number): Promise<string>;
  /** The program's exit status, once it has exited. */
  exitCode(): Promise<number>;
  close(): Promise<void>;
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** Starts `argv` in a 160x50 terminal with `env` added, in `cwd`. */
export async function openTerminal(
  argv: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Terminal> {
  const socket = `cs-${randomUUID().slice(0, 8)}`;
  const config = join(mkdtempSync(join(tmpdir(), 'countersign-tmux-')), 'tmux.conf');
  writeFileSync(config, 'set -g remain-on-exit on\nset -g history-limit 10000\n');
  const tmux = async (...args: string[]) => (await run(TMUX, ['-L', socket, ...args])).stdout;
  const envArgs = Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
  await run(TMUX, [
    '-L',
    socket,
    '-f',
    config,
    'new-session',
    '-d',
    '-x',
    '160',
    '-y',
    '50',
    '-c',
    cwd,
    ...envArgs,
    `${argv.map(quote).join(' ')}; echo; echo "[exited $?]"`,
  ]);
  // Trailing blank rows trimmed, so what was seen stays a prefix of what is seen later.
  const screen = async (colour = false) =>
    (await tmux('capture-pane', '-p', '-J', '-S', '-', ...(colour ? ['-e'] : []))).trimEnd();
  const terminal: Terminal = {
    screen,
    async press(...keys) {
      for (const key of keys) await tmux('send-keys', key);
    },
    async type(text) {
      await tmux('send-keys', '-l', text);
    },
    mark: async () => (await screen()).length,
    async waitFor(expected, after = 0) {
      for (let attempt = 0; ; attempt++) {
        const seen = (await screen()).slice(after);
        if (typeof expected === 'string' ? seen.includes(expected) : expected.test(seen)) return seen;
        if (attempt === 400) throw new Error(`the terminal never showed ${String(expected)}; it shows:\n${seen}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async exitCode() {
      const seen = await terminal.waitFor(/\n\[exited \d+\]/);
      return Number(/\n\[exited (\d+)\]/.exec(seen)![1]);
    },
    async close() {
      await tmux('kill-server').catch(() => undefined);
    },
  };
  return terminal;
}
