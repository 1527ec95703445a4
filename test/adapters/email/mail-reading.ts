// How a person reads an approval mail, for the email tests: the words of its HTML part, the markup in it that the
// template did not write, its links, and a click on one as a browser makes it (GET the page, POST its form).
import { expect } from 'vitest';
import type { ReceivedMail } from '../../support/fake-smtp.js';

/** The tags the mail template writes, and the one attribute it writes (`href`, on links only). */
const TEMPLATE_TAGS = new Set(['html', 'body', 'p', 'strong', 'code', 'pre', 'ul', 'li', 'a']);

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) =>
    name.startsWith('#x') || name.startsWith('#X')
      ? String.fromCodePoint(parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (ENTITIES[name.toLowerCase()] ?? entity),
  );
}

/** What a person reads in an HTML part: tags dropped, block ends as line breaks, entities decoded. */
export function htmlVisible(html: string): string {
  return decodeEntities(html.replace(/<\/(p|li|pre)>|<br\s*\/?>/gi, '\n').replace(/<[^>]*>/g, ''));
}

/** Tags or attributes in an HTML part that the template does not write: markup that came from request text. */
export function activeInHtml(html: string): string[] {
  const active: string[] = [];
  for (const [tag, name = '', attributes = ''] of html.matchAll(/<\/?([^\s>/]+)([^>]*)>/g)) {
    const attributeNames = [...attributes.matchAll(/([^\s=]+)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)|([^\s=/]+)/g)].map(
      (match) => (match[1] ?? match[2])!.toLowerCase(),
    );
    const allowed = name === 'a' ? ['href'] : [];
    if (!TEMPLATE_TAGS.has(name.toLowerCase()) || attributeNames.some((attribute) => !allowed.includes(attribute)))
      active.push(tag);
  }
  return active;
}

const URL_PATTERN = /https?:\/\/\S+/g;
/** Words as read: links and list bullets aside. */
const words = (text: string) =>
  text
    .replace(URL_PATTERN, ' ')
    .replace(/^- /gm, '')
    .split(/[\s:]+/)
    .filter(Boolean);

/** The text part, after checking that the HTML part reads the same words (links aside). */
export function visibleText(received: ReceivedMail): string {
  const { text, html } = received.mail;
  expect(text).toBeDefined();
  expect(html).toBeDefined();
  expect(words(htmlVisible(html!))).toEqual(words(text!));
  return text!;
}

export type LinkLabel = 'Approve' | 'Approve for this run' | 'Approve for this session' | 'Deny' | 'Answer' | 'Decline';

/** The labels of a mail's decision links, in order. */
export function linkLabels(received: ReceivedMail): string[] {
  return [...(received.mail.text ?? '').matchAll(/^- (.+?): https?:\/\/\S+$/gm)].map((match) => match[1]!);
}

/** The URL behind a link of the mail's text part, checked to be the same in its HTML part. */
export function linkOf(received: ReceivedMail, label: LinkLabel): string {
  const url = new RegExp(`^- ${label}: (\\S+)$`, 'm').exec(received.mail.text ?? '')?.[1];
  expect(url).toBeDefined();
  expect(received.mail.html).toContain(`<a href="${url!}">${label}</a>`);
  return url!;
}

/** Opens a link page and submits its form as a browser would; resolves with the page's heading and message. */
export async function clickLink(url: string): Promise<string> {
  const page = await fetch(url);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (action === undefined) return htmlVisible(html).trim();
  const answer = await fetch(new URL(decodeEntities(action), url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  const body = await answer.text();
  const title = /<h1>(.*?)<\/h1>/s.exec(body)?.[1] ?? '';
  const message = /<p>(.*?)<\/p>/s.exec(body)?.[1] ?? '';
  return `${decodeEntities(title)}: ${decodeEntities(message)}`;
}

/**
 * Opens a question's Answer link and posts its form with `value` for its one field, as a browser would; resolves
 * with what the page showed and what the person was told: each field's problem on a refused answer, else the page's
 * heading and message.
 */
export async function answerOnPage(url: string, value: string): Promise<{ form: string; told: string }> {
  const page = await fetch(url);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const field = /name="(answer\.[A-Za-z0-9_]+)"/.exec(html)?.[1];
  if (action === undefined || field === undefined) return { form: '', told: htmlVisible(html).trim() };
  const answer = await fetch(new URL(decodeEntities(action), url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ form: 'answer', [field]: value }).toString(),
  });
  const body = await answer.text();
  const problems = [...body.matchAll(/<span class="field-error"[^>]*>(.*?)<\/span>/gs)].map((match) => match[1]!);
  const title = /<h1>(.*?)<\/h1>/s.exec(body)?.[1] ?? '';
  const message = /<p>(.*?)<\/p>/s.exec(body)?.[1] ?? '';
  return {
    form: htmlVisible(html),
    told: decodeEntities(problems.length > 0 ? problems.join('; ') : `${title}: ${message}`),
  };
}
