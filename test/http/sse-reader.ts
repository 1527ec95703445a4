// Reads a `GET /events` response the way a browser's EventSource would: blocks separated by blank lines.
import type { RunEvent } from 'countersign';

/** Reads server-sent events from a response body: comments and events, in order. */
export function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    /** The next block (event or comment), without its trailing blank line. */
    async next(): Promise<string> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          return block;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    },
    /** The next event, skipping comments and the retry hint. */
    async event(): Promise<{ type: string; data: RunEvent }> {
      for (;;) {
        const block = await this.next();
        const type = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (type && data) return { type, data: JSON.parse(data) as RunEvent };
      }
    },
    cancel: () => reader.cancel(),
  };
}
