/** Reads what a reviewer types: single keys on a terminal (raw mode), whole lines from a pipe or a file. */
export interface KeyReader {
  /** True when keys arrive one at a time, without Enter. */
  readonly raw: boolean;
  /** The next key (lower case; a line's trimmed text when not raw), or undefined at the end of input (Ctrl-C and Ctrl-D too). */
  key(): Promise<string | undefined>;
  /** The next line, typed with the terminal's own line editing and echo; undefined at the end of input. */
  line(): Promise<string | undefined>;
  /** Hands the terminal to another program (an editor) until `resume`. */
  pause(): void;
  resume(): void;
  close(): void;
}

/** Keys that end the review as q does. */
const QUIT_KEYS = new Set(['\u0003', '\u0004']);

/**
 * A `KeyReader` on `input`: raw single keys when it is a TTY that can go raw, lines otherwise. An arrow key's
 * escape sequence is read as one key (and means nothing to the reviewer).
 *
 * @example
 * const reader = keyReader(process.stdin);
 * const key = await reader.key();
 */
export function keyReader(input: NodeJS.ReadableStream): KeyReader {
  const tty = input as Partial<NodeJS.ReadStream>;
  const raw = tty.isTTY === true && typeof tty.setRawMode === 'function';
  const setRaw = (on: boolean) => {
    if (raw) tty.setRawMode!(on);
  };
  let buffer = '';
  let ended = false;
  let waiting: (() => void) | undefined;
  const wake = () => {
    const next = waiting;
    waiting = undefined;
    next?.();
  };
  const onData = (chunk: Buffer | string) => {
    buffer += chunk.toString();
    wake();
  };
  const onEnd = () => {
    ended = true;
    wake();
  };
  input.on('data', onData);
  input.on('end', onEnd);
  setRaw(true);

  /** Waits until `take` finds what it needs in the buffer (or input ends). */
  const read = async (take: () => string | undefined): Promise<string | undefined> => {
    for (;;) {
      const taken = take();
      if (taken !== undefined) return taken;
      if (ended) return undefined;
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
    }
  };
  const takeLine = () => {
    const end = buffer.search(/\r?\n|\r/);
    if (end < 0) return undefined;
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
    return line;
  };
  const line = async () => {
    setRaw(false);
    try {
      return await read(takeLine);
    } finally {
      setRaw(true);
    }
  };
  return {
    raw,
    async key() {
      if (!raw) return (await read(takeLine))?.trim().toLowerCase();
      const key = await read(() => {
        if (buffer === '') return undefined;
        const sequence = /^\u001b\[[0-9;]*[A-Za-z~]/.exec(buffer)?.[0] ?? buffer[0]!;
        buffer = buffer.slice(sequence.length);
        return sequence;
      });
      return key === undefined || QUIT_KEYS.has(key) ? undefined : key.toLowerCase();
    },
    line,
    pause() {
      setRaw(false);
      input.pause();
    },
    resume() {
      setRaw(true);
      input.resume();
    },
    close() {
      setRaw(false);
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
    },
  };
}
