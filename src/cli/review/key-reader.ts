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
  return new InputKeys(input);
}

/** The reader's state: what arrived and was not taken yet, whether input ended, and the read waiting for more. */
class InputKeys implements KeyReader {
  readonly raw: boolean;
  readonly #input: NodeJS.ReadableStream;
  readonly #tty: Partial<NodeJS.ReadStream>;
  #buffer = '';
  #ended = false;
  #waiting: (() => void) | undefined;
  readonly #onData = (chunk: Buffer | string) => {
    this.#buffer += chunk.toString();
    this.#wake();
  };
  readonly #onEnd = () => {
    this.#ended = true;
    this.#wake();
  };

  constructor(input: NodeJS.ReadableStream) {
    this.#input = input;
    this.#tty = input as Partial<NodeJS.ReadStream>;
    this.raw = this.#tty.isTTY === true && typeof this.#tty.setRawMode === 'function';
    input.on('data', this.#onData);
    input.on('end', this.#onEnd);
    this.#setRaw(true);
  }

  async key(): Promise<string | undefined> {
    if (!this.raw) return (await this.#read(this.#takeLine))?.trim().toLowerCase();
    const key = await this.#read(this.#takeKey);
    return key === undefined || QUIT_KEYS.has(key) ? undefined : key.toLowerCase();
  }

  async line(): Promise<string | undefined> {
    this.#setRaw(false);
    try {
      return await this.#read(this.#takeLine);
    } finally {
      this.#setRaw(true);
    }
  }

  pause(): void {
    this.#setRaw(false);
    this.#input.pause();
  }

  resume(): void {
    this.#setRaw(true);
    this.#input.resume();
  }

  close(): void {
    this.#setRaw(false);
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.pause();
  }

  #setRaw(on: boolean): void {
    if (this.raw) this.#tty.setRawMode!(on);
  }

  #wake(): void {
    const next = this.#waiting;
    this.#waiting = undefined;
    next?.();
  }

  /** Waits until `take` finds what it needs in the buffer (or input ends). */
  async #read(take: () => string | undefined): Promise<string | undefined> {
    for (;;) {
      const taken = take();
      if (taken !== undefined) return taken;
      if (this.#ended) return undefined;
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }

  readonly #takeLine = (): string | undefined => {
    const end = this.#buffer.search(/\r?\n|\r/);
    if (end < 0) return undefined;
    const line = this.#buffer.slice(0, end);
    this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith('\r\n', end) ? 2 : 1));
    return line;
  };

  /** One key; an escape sequence (an arrow key) as one. */
  readonly #takeKey = (): string | undefined => {
    if (this.#buffer === '') return undefined;
    const sequence = /^\u001b\[[0-9;]*[A-Za-z~]/.exec(this.#buffer)?.[0] ?? this.#buffer[0]!;
    this.#buffer = this.#buffer.slice(sequence.length);
    return sequence;
  };
}
