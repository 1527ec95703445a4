// A link countersign owns: it opens a client, notices when the server goes away (the transport closes, or a transport
// error is followed by a ping that gets no answer), and opens a new one with jittered exponential backoff until it
// connects or `maxAttempts` tries failed (then `failed`, for good).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ConnectorStatus } from '../index.js';
import { retryDelay } from '../kit/index.js';
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
  const listeners = new Listeners<ConnectorStatus>();
  let status: ConnectorStatus = 'connecting';
  let client: Client | undefined;
  let closed = false;
  let checking: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const policy = { maxAttempts: options.reconnect.maxAttempts, backoffMs: options.reconnect.initialDelayMs, maxBackoffMs: options.reconnect.maxDelayMs };

  const setStatus = (next: ConnectorStatus) => {
    if (next === status) return;
    status = next;
    listeners.emit(next);
  };

  const attach = async (fresh: Client) => {
    await options.ready(fresh);
    fresh.onclose = () => lost(fresh);
    fresh.onerror = () => void check(fresh);
    client = fresh;
    setStatus('connected');
  };

  const lost = (gone: Client) => {
    if (closed || client !== gone) return;
    client = undefined;
    void gone.close().catch(() => undefined);
    setStatus('disconnected');
    retry(1);
  };

  const check = (suspect: Client): Promise<void> => {
    if (client !== suspect) return Promise.resolve();
    checking ??= suspect
      .ping({ timeout: options.pingTimeoutMs })
      .then(
        () => undefined,
        () => lost(suspect),
      )
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };

  const retry = (attempt: number) => {
    if (closed) return;
    if (attempt > options.reconnect.maxAttempts) return setStatus('failed');
    timer = setTimeout(
      async () => {
        setStatus('connecting');
        let fresh: Client | undefined;
        try {
          fresh = await options.open();
          if (closed) return void (await fresh.close());
          await attach(fresh);
        } catch {
          void fresh?.close().catch(() => undefined);
          if (closed) return;
          setStatus('disconnected');
          retry(attempt + 1);
        }
      },
      retryDelay(attempt + 1, policy),
    );
    timer.unref();
  };

  await attach(await options.open());

  return {
    get status() {
      return status;
    },
    get client() {
      return client;
    },
    onStatus: (listener) => listeners.add(listener),
    connected: (deadline, signal) => {
      if (client !== undefined || closed || status === 'failed') return Promise.resolve(client);
      return new Promise<Client | undefined>((resolve, reject) => {
        const finish = (outcome: () => void) => {
          clearTimeout(waiting);
          unsubscribe();
          signal?.removeEventListener('abort', aborted);
          outcome();
        };
        const aborted = () => finish(() => reject(signal!.reason));
        const waiting = setTimeout(() => finish(() => resolve(undefined)), Math.max(0, deadline - Date.now()));
        const unsubscribe = listeners.add((next) => {
          if (next === 'connected' || next === 'failed' || closed) finish(() => resolve(client));
        });
        if (signal?.aborted) return aborted();
        signal?.addEventListener('abort', aborted, { once: true });
      });
    },
    suspect: () => (client === undefined ? Promise.resolve() : check(client)),
    close: async () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      const last = client;
      client = undefined;
      setStatus('disconnected');
      await last?.close();
    },
  };
}
