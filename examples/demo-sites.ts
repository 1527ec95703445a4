// A loopback HTTP server that stands in for the web in the examples: it serves
// a few pages by host name and path, so a fetch tool can be shown end to end
// without the internet.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchPage } from './web-fetch-tools.js';

/** Pages by `host/path`, e.g. `docs.example.com/changelog`. */
export type DemoPages = Readonly<Record<string, string>>;

export interface DemoSites {
  /** Fetches `url` from the loopback server (never from `url`'s real host); a page it lacks is an error. */
  readonly fetchPage: FetchPage;
  close(): Promise<void>;
}

/** Serves `pages` on 127.0.0.1 at a port the OS picks. */
export async function startDemoSites(pages: DemoPages): Promise<DemoSites> {
  const server = createServer((request, response) => {
    const text = pages[(request.url ?? '/').slice(1)];
    response
      .writeHead(text === undefined ? 404 : 200, { 'content-type': 'text/plain; charset=utf-8' })
      .end(text ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    fetchPage: async (url, signal) => {
      const response = await fetch(`${base}/${url.hostname}${url.pathname}`, { signal });
      if (!response.ok) throw new Error(`${url.href}: ${response.status} ${await response.text()}`);
      return response.text();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
