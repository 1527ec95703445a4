// Reads a raw RFC 5322 message as far as the email tests need: unfolded headers (encoded words decoded),
// multipart bodies split at their boundaries, quoted-printable and base64 parts decoded as UTF-8.

export interface ParsedMail {
  /** Header values by lower-case name, in order; a name may repeat. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  header(name: string): string | undefined;
  readonly text: string | undefined;
  readonly html: string | undefined;
}

interface Part {
  readonly headers: Map<string, string[]>;
  readonly body: string;
}

function decodeQuotedPrintable(body: string): string {
  const bytes: number[] = [];
  const text = body.replace(/=\r?\n/g, '');
  for (let index = 0; index < text.length; index++) {
    const hex = text[index] === '=' ? /^[0-9A-F]{2}$/i.exec(text.slice(index + 1, index + 3))?.[0] : undefined;
    if (hex) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else bytes.push(...Buffer.from(text[index]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BQ]\?[^?]*\?=)\s+(?==\?)/gi, '$1')
    .replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function splitPart(raw: string): Part {
  const cut = raw.search(/\r?\n\r?\n/);
  const head = cut === -1 ? raw : raw.slice(0, cut);
  const body = cut === -1 ? '' : raw.slice(cut).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string[]>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), decodeEncodedWords(line.slice(colon + 1).trim())]);
  }
  return { headers, body };
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding')?.[0] ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(part.body);
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return part.body;
}

/** The leaf parts of `part`, multiparts opened at their boundaries. */
function leaves(part: Part): Part[] {
  const type = part.headers.get('content-type')?.[0] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || boundary === undefined) return [part];
  const sections = part.body.split(`--${boundary}`).slice(1);
  return sections
    .filter((section) => !section.startsWith('--'))
    .flatMap((section) => leaves(splitPart(section.replace(/^\r?\n/, '').replace(/\r?\n$/, ''))));
}

export function parseMail(raw: string): ParsedMail {
  const top = splitPart(raw);
  const parts = leaves(top);
  const ofType = (type: string) => {
    const found = parts.find((part) =>
      (part.headers.get('content-type')?.[0] ?? 'text/plain').toLowerCase().startsWith(type),
    );
    return found === undefined ? undefined : decodeBody(found);
  };
  return {
    headers: top.headers,
    header: (name) => top.headers.get(name.toLowerCase())?.[0],
    text: ofType('text/plain'),
    html: ofType('text/html'),
  };
}
