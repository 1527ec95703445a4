// What a connection's tools and calls stand on: a client that is there or not, its status, and a way to wait for it.
// Two kinds: one countersign connects and reconnects itself (reconnecting-link.ts), and one around a client the app
// already has (here), which countersign never reconnects or closes.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ConnectorStatus } from '../index.js';

export interface McpLink {
  readonly status: ConnectorStatus;
  /** The client while `connected`. */
  readonly client: Client | undefined;
  /** Called with each new status; returns the unsubscribe function. */
  onStatus(listener: (status: ConnectorStatus) => void): () => void;
  /** The client once connected, or undefined when it is not by `deadline` (epoch ms) or will not be; rejects when `signal` aborts. */
  connected(deadline: number, signal?: AbortSignal): Promise<Client | undefined>;
  /** A request failed in a way that may mean the server is gone: find out (resolves once known), and reconnect if it is. */
  suspect(): Promise<void>;
  close(): Promise<void>;
}

/** A set of listeners: add one (getting its removal back), call them all. */
export class Listeners<Value> {
  readonly #set = new Set<(value: Value) => void>();

  add(listener: (value: Value) => void): () => void {
    const own = (value: Value) => listener(value);
    this.#set.add(own);
    return () => void this.#set.delete(own);
  }

  emit(value: Value): void {
    for (const listener of [...this.#set]) listener(value);
  }
}

/**
 * The link of a client the app connected: `connected` while its transport is
 * there, `disconnected` once it closed. The app owns the client: nothing here
 * reconnects or closes it, and a call made while it is down fails at once.
 */
export function clientLink(client: Client): McpLink {
  const listeners = new Listeners<ConnectorStatus>();
  const appOnClose = client.onclose;
  client.onclose = () => {
    appOnClose?.();
    listeners.emit('disconnected');
  };
  return {
    get status() {
      return client.transport === undefined ? 'disconnected' : 'connected';
    },
    get client() {
      return client.transport === undefined ? undefined : client;
    },
    onStatus: (listener) => listeners.add(listener),
    connected: async () => (client.transport === undefined ? undefined : client),
    suspect: async () => undefined,
    close: async () => {
      if (appOnClose === undefined) delete client.onclose;
      else client.onclose = appOnClose;
    },
  };
}
