// Discord's side of the tests: how its client renders what a bot sent (what a person reads, and which markup or
// mentions would be active), and an application that signs interactions and sends them to a route over a socket.
import { generateKeyPairSync, sign } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ChannelRoute } from 'countersign/channels';

/** Text a Discord client shows for `markdown` (escapes decoded, fences and bold dropped, mentions as @id), and what would be live in it. */
export function renderDiscord(
  markdown: string,
  allowedMentions?: unknown,
): { readonly visible: string; readonly active: string[] } {
  const pingsEveryone = !(
    allowedMentions &&
    Array.isArray((allowedMentions as { parse?: unknown }).parse) &&
    !(allowedMentions as { parse: string[] }).parse.includes('everyone')
  );
  const active: string[] = [];
  let visible = '';
  for (let i = 0; i < markdown.length; ) {
    const rest = markdown.slice(i);
    const lineStart = i === 0 || markdown[i - 1] === '\n';
    const fence = /^```\w*\n?([\s\S]*?)(```|$)/.exec(rest);
    const escaped = /^\\([^0-9A-Za-z\s])/.exec(rest);
    const mention = /^<(@[!&]?|#)(\d+)>|^<a?:\w+:\d+>|^<t:\d+(:\w)?>/.exec(rest);
    const block = lineStart ? /^[ \t]*(#{1,3} |-# |[-*+] |\d+\. |>>?>? )/.exec(rest) : null;
    const everyone = /^@(everyone|here)/.exec(rest);
    if (fence) {
      visible += fence[1]!;
      i += fence[0].length;
    } else if (escaped) {
      visible += escaped[1]!;
      i += 2;
    } else if (rest.startsWith('**')) {
      i += 2; // bold: the only markup the cards write themselves
    } else if (mention) {
      active.push(mention[0]);
      visible += mention[2] ? `@${mention[2]}` : mention[0];
      i += mention[0].length;
    } else if (block) {
      active.push(block[0]);
      visible += block[0];
      i += block[0].length;
    } else {
      if (everyone && pingsEveryone) active.push(everyone[0]);
      if (/[*_~`|>[\]]/.test(rest[0]!)) active.push(rest[0]!);
      visible += rest[0]!;
      i += 1;
    }
  }
  return { visible: visible.replace(/\u200b/g, ''), active };
}

/** What a person reads in a message body as the API received it: content and embeds (title and footer are plain text). */
export function renderMessage(json: Record<string, unknown>): { readonly visible: string; readonly active: string[] } {
  const embeds = (json['embeds'] ?? []) as { title?: string; description?: string; footer?: { text?: string } }[];
  const content = renderDiscord(String(json['content'] ?? ''), json['allowed_mentions']);
  const described = embeds.map((embed) => renderDiscord(embed.description ?? '', json['allowed_mentions']));
  const visible = [
    content.visible,
    ...embeds.flatMap((embed, index) => [embed.title ?? '', described[index]!.visible, embed.footer?.text ?? '']),
  ]
    .filter(Boolean)
    .join('\n');
  return { visible, active: [...content.active, ...described.flatMap((part) => part.active)] };
}

export interface DiscordApp {
  /** The public key as the Developer Portal shows it: 64 hex characters. */
  readonly publicKey: string;
  /** The route's URL on loopback. */
  readonly url: string;
  /** Sends `interaction` signed (at `timestamp` seconds, default now); `tamper` changes the body or the timestamp header after signing. */
  send(
    interaction: unknown,
    options?: {
      readonly timestamp?: number;
      readonly tamper?: { readonly body?: (body: string) => string; readonly timestamp?: string };
    },
  ): Promise<Response>;
  /** Waits for the work the route left running after its answers. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Serves `route` on loopback and signs requests to it with a fresh Ed25519 key pair. */
export async function startDiscordApp(makeRoute: (publicKey: string) => ChannelRoute): Promise<DiscordApp> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  const route = makeRoute(publicHex);
  const pending: Promise<unknown>[] = [];
  const server = serve({
    fetch: (request) => route.fetch(request, { waitUntil: (work) => void pending.push(work) }),
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${route.path}`;
  return {
    publicKey: publicHex,
    url,
    send(interaction, options = {}) {
      const body = JSON.stringify(interaction);
      const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
      const signature = sign(null, Buffer.from(timestamp + body), privateKey).toString('hex');
      return fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-signature-ed25519': signature,
          'x-signature-timestamp': options.tamper?.timestamp ?? timestamp,
        },
        body: options.tamper?.body ? options.tamper.body(body) : body,
      });
    },
    async settle() {
      while (pending.length > 0) await Promise.all(pending.splice(0));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
