import { describe, expect, it } from 'vitest';
import { serverSentEvents, type ServerSentEvent } from '../../src/kit/model/server-sent-events.js';

/** A body delivering `chunks` one after another, as a network would split them. */
function body(chunks: readonly (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function read(chunks: readonly (string | Uint8Array)[]): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of serverSentEvents(body(chunks))) events.push(event);
  return events;
}

describe('serverSentEvents', () => {
  it('reads events ended by \\n, \\r\\n or \\r, even when a line ending is split across chunks', async () => {
    const text = 'event: a\ndata: 1\n\nevent: b\r\ndata: 2\r\n\r\nevent: c\rdata: 3\r\r';
    expect(await read([text])).toEqual([
      { event: 'a', data: '1' },
      { event: 'b', data: '2' },
      { event: 'c', data: '3' },
    ]);
    // Every split point of the same text gives the same events.
    for (let cut = 1; cut < text.length; cut++)
      expect(await read([text.slice(0, cut), text.slice(cut)])).toEqual(await read([text]));
  });

  it('joins the data lines of one event, skips comments and unknown fields, names unnamed events message', async () => {
    const events = await read([
      ': keep-alive\n\ndata: {"a":\ndata:  1}\nid: 7\nretry: 10\n\ndata\n\nevent: only-a-name\n\n',
    ]);
    expect(events).toEqual([
      { event: 'message', data: '{"a":\n 1}' },
      { event: 'message', data: '' },
    ]);
  });

  it('decodes UTF-8 split inside a character, drops a leading BOM and an event the body ends inside', async () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: ⚠️🧹\n\ndata: unfinished\n');
    const events = await read([bytes.slice(0, 10), bytes.slice(10)]);
    expect(events).toEqual([{ event: 'message', data: '⚠️🧹' }]);
  });
});
