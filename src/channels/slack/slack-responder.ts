import { sendJson, withRetries, type ClickReply } from '../../kit/index.js';
import { mrkdwn } from './slack-markup.js';

export interface ResponderSettings {
  readonly origins: ReadonlySet<string>;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
}

/** What to post: the reply, whether it may replace the card, and the card's blocks to keep above it (buttons gone). */
export interface Answer {
  readonly reply: Pick<ClickReply, 'text' | 'replace'>;
  readonly kept?: readonly unknown[] | undefined;
}

/** The response_url body for `answer`. */
function bodyOf({ reply, kept }: Answer): Record<string, unknown> {
  if (!reply.replace) return { replace_original: false, response_type: 'ephemeral', text: reply.text };
  return {
    replace_original: true,
    text: reply.text,
    ...(kept === undefined ? {} : { blocks: [...kept, { type: 'section', text: mrkdwn(reply.text) }] }),
  };
}

/** Posts `answer` to `responseUrl`; throws (an Error naming no URL but its origin) when it is refused or fails. */
export async function respond(settings: ResponderSettings, responseUrl: string, answer: Answer): Promise<void> {
  let url: URL;
  try {
    url = new URL(responseUrl);
  } catch {
    throw new Error('Slack sent a response_url that is not a URL; the answer was not posted.');
  }
  if (!settings.origins.has(url.origin) || url.username !== '' || url.password !== '') {
    throw new Error(
      `Slack sent a response_url on ${url.origin}, not on an allowed origin (${[...settings.origins].join(', ')}); the answer was not posted.`,
    );
  }
  const body = bodyOf(answer);
  await withRetries(
    () => sendJson(settings.fetch, url, { body, timeoutMs: settings.timeoutMs, service: 'Slack (response_url)' }),
    {
      maxAttempts: 2,
      backoffMs: 500,
      maxBackoffMs: 2000,
    },
  );
}
