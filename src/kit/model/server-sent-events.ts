// Server-sent events as the HTML standard parses them (text/event-stream): bytes decoded as UTF-8 (a leading BOM
// dropped), lines ended by \r\n, \n or \r (even split across chunks), `:` comments skipped, `data` lines of one
// event joined with \n, an event dispatched at a blank line when it has data. Every streaming model adapter reads
// its provider's answer through this one parser.

/** One event of a stream: its `event` name (`message` when the stream names none) and its data. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
}

/** Reads lines out of decoded text as it comes, holding back an unfinished line (and a \r that may precede a \n). */
class LineSplitter {
  private buffer = '';
  private afterCarriageReturn = false;

  *push(text: string): Generator<string> {
    let start = 0;
    if (this.afterCarriageReturn && text.startsWith('\n')) start = 1;
    this.afterCarriageReturn = false;
    const all = this.buffer + text.slice(start);
    this.buffer = '';
    let lineStart = 0;
    for (let index = 0; index < all.length; index++) {
      const char = all[index];
      if (char !== '\n' && char !== '\r') continue;
      yield all.slice(lineStart, index);
      if (char === '\r') {
        if (index + 1 === all.length) this.afterCarriageReturn = true;
        else if (all[index + 1] === '\n') index++;
      }
      lineStart = index + 1;
    }
    this.buffer = all.slice(lineStart);
  }
}

/** The body's chunks; leaving early cancels the body (the provider stops sending). */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  try {
    while (true) {
      const read = await reader.read();
      if (read.done) break;
      yield read.value;
    }
    done = true;
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * The events of a `text/event-stream` body, in order, as they arrive. An
 * event still open when the body ends is dropped, as the standard says.
 * Throws what reading the body throws; stopping early cancels the body.
 */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  const lines = new LineSplitter();
  let event = '';
  let data: string[] = [];
  for await (const chunk of chunksOf(body)) {
    for (const line of lines.push(decoder.decode(chunk, { stream: true }))) {
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  }
}
