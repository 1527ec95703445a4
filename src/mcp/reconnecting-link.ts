// A link countersign owns: it opens a client, notices when the server goes away (the transport closes, a transport
// error is followed by a ping that gets no answer, or, over HTTP, a heartbeat ping gets none), and opens a new one with jittered exponential backoff until it
// connects or `maxAttempts` tries failed (then `failed`, for good).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ConnectorStatus } from '../index.js';
import { type RetryPolicy, retryDelay } from '../kit/index.js';
import { Listeners, type McpLink } from './mcp-link.js';
import type { ReconnectSettings } from './mcp-options.js';

export interface ReconnectingLinkOptions {
  /** A new connected client each call. */
  readonly open: () => Promise<Client>;
  /** Run on each new client before it counts as connected (list the tools, listen for changes). */
  readonly ready: (client: Client) => Promise<void>;
  readonly reconnect: ReconnectSettings;
  /** How long a ping may take before the server counts as gone. */
  readonly pingTimeoutMs: number;
}

/** A link whose first connection is made before it resolves (and whose failure it throws). */
export async function reconnectingLink(options: ReconnectingLinkOptions): Promise<McpLink> {
  const link = new ReconnectingLink(options);
  await link.attach(await options.open());
  return link;
}

/** The link's state and its moves: attach a client, notice it is lost, retry with backoff, wait for a connection. */
class ReconnectingLink implements McpLink {
  readonly #options: ReconnectingLinkOptions;
  readonly #listeners = new Listeners<ConnectorStatus>();
  readonly #policy: RetryPolicy;
  #status: ConnectorStatus = 'connecting';
  #client: Client | undefined;
  #closed = false;
  #checking: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(options: ReconnectingLinkOptions) {
    this.#options = options;
    this.#policy = {
      maxAttempts: options.reconnect.maxAttempts,
      backoffMs: options.reconnect.initialDelayMs,
      maxBackoffMs: options.reconnect.maxDelayMs,
    };
  }

  get status(): ConnectorStatus {
    return this.#status;
  }

  get client(): Client | undefined {
    return this.#client;
  }

  onStatus = (listener: (status: ConnectorStatus) => void): (() => void) => this.#listeners.add(listener);

  connected = (deadline: number, signal?: AbortSignal): Promise<Client | undefined> => {
    if (this.#client !== undefined || this.#closed || this.#status === 'failed') return Promise.resolve(this.#client);
    return new Promise<Client | undefined>((resolve, reject) => {
      const finish = (outcome: () => void) => {
        clearTimeout(waiting);
        unsubscribe();
        signal?.removeEventListener('abort', aborted);
        outcome();
      };
      const aborted = () => finish(() => reject(signal!.reason));
      const waiting = setTimeout(() => finish(() => resolve(undefined)), Math.max(0, deadline - Date.now()));
      const unsubscribe = this.#listeners.add((next) => {
        if (next === 'connected' || next === 'failed' || this.#closed) finish(() => resolve(this.#client));
      });
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
    });
  };

  suspect = (): Promise<void> => (this.#client === undefined ? Promise.resolve() : this.#check(this.#client));

  close = async (): Promise<void> => {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#heartbeat);
    const last = this.#client;
    this.#client = undefined;
    this.#setStatus('disconnected');
    await last?.close();
  };

  /** Makes `fresh` the link's client once `ready` ran on it, watching it for its loss. */
  async attach(fresh: Client): Promise<void> {
    await this.#options.ready(fresh);
    fresh.onclose = () => this.#lost(fresh);
    fresh.onerror = () => void this.#check(fresh);
    this.#client = fresh;
    this.#setStatus('connected');
    const { heartbeatMs } = this.#options.reconnect;
    clearInterval(this.#heartbeat);
    // A ping that gets no answer is a lost server, reconnected as any other (see #check).
    if (heartbeatMs > 0) this.#heartbeat = setInterval(() => void this.#check(fresh), heartbeatMs).unref();
  }

  #setStatus(next: ConnectorStatus): void {
    if (next === this.#status) return;
    this.#status = next;
    this.#listeners.emit(next);
  }

  #lost(gone: Client): void {
    if (this.#closed || this.#client !== gone) return;
    clearInterval(this.#heartbeat);
    this.#client = undefined;
    void gone.close().catch(() => undefined);
    this.#setStatus('disconnected');
    this.#retry(1);
  }

  #check(suspect: Client): Promise<void> {
    if (this.#client !== suspect) return Promise.resolve();
    this.#checking ??= suspect
      .ping({ timeout: this.#options.pingTimeoutMs })
      .then(
        () => undefined,
        () => this.#lost(suspect),
      )
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }

  #retry(attempt: number): void {
    if (this.#closed) return;
    if (attempt > this.#options.reconnect.maxAttempts) {
      this.#setStatus('failed');
      return;
    }
    this.#timer = setTimeout(() => void this.#reopen(attempt), retryDelay(attempt + 1, this.#policy));
    this.#timer.unref();
  }

  /** Attempt number `attempt` to open a new client; another is scheduled when it fails. */
  async #reopen(attempt: number): Promise<void> {
    this.#setStatus('connecting');
    let fresh: Client | undefined;
    try {
      fresh = await this.#options.open();
      if (this.#closed) return void (await fresh.close());
      await this.attach(fresh);
    } catch {
      void fresh?.close().catch(() => undefined);
      if (this.#closed) return;
      this.#setStatus('disconnected');
      this.#retry(attempt + 1);
    }
  }
}
