// examples/chat (npm run example:chat) in Chromium (Debian's, through playwright-core): the AI SDK's own useChat
// page with countersign's card inline. A message, the card, approve, the tool's result streams in; deny with a
// reason; approve in the console in another tab and watch the chat update; reload mid-wait and the card is still
// there. The example's scripted model needs no key and no network.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { type ExampleProcess, runExample } from '../support/example-process.js';
import { freePort } from '../support/free-port.js';

describe.skipIf(!hasChromium)('examples/chat in Chromium', () => {
  let browser: Browser;
  let example: ExampleProcess;
  let base: string;
  let token: string;

  beforeAll(async () => {
    const port = await freePort();
    example = runExample('examples/chat/server.ts', { PORT: String(port) });
    base = (await example.lineMatching(/^chat on /)).replace('chat on ', '');
    token = (await example.lineMatching(/^console on /)).replace(/^.*API token: (.+)\)$/, '$1');
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    example?.child.kill('SIGTERM');
  });

  /** Script errors of the chat pages a test opened: none is allowed. */
  const pageErrors: string[] = [];
  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  /** A fresh page on its own chat. */
  async function chatPage(chat: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => void pageErrors.push(error.message));
    await page.goto(`${base}?chat=${chat}`);
    await page.getByRole('heading', { name: 'countersign chat' }).waitFor();
    return page;
  }

  async function say(page: Page, text: string) {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  const cardOf = (page: Page, path: string) => page.getByRole('region', { name: `Approval: Delete ${path}?` });

  it('shows the card inline with redacted arguments and an expiry; approving streams the result in', async () => {
    const page = await chatPage('approve');
    await say(page, 'delete /tmp/report.txt');
    const card = cardOf(page, '/tmp/report.txt');
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain('"path": "/tmp/report.txt"');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain('sk-live-example');
    expect(text).toMatch(/Expires in \d+ s/);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('deleted /tmp/report.txt', { exact: true }).waitFor();
    await page.getByText('Done: deleted /tmp/report.txt.').waitFor();
    expect(await page.locator('.decision').innerText()).toBe('approved by demo-user');
    expect(await cardOf(page, '/tmp/report.txt').count()).toBe(0);
  });

  it('denies with a reason', async () => {
    const page = await chatPage('deny');
    await say(page, 'delete /etc/hosts');
    const card = cardOf(page, '/etc/hosts');
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.getByLabel('Reason').fill('system file');
    await card.getByRole('button', { name: 'Send denial' }).click();
    await page.getByText('Understood, I left the file alone.').waitFor();
    expect(await page.locator('.decision').innerText()).toBe('denied by demo-user: system file');
  });

  it('a decision made in the console in another tab shows up in the chat', async () => {
    const page = await chatPage('console');
    await say(page, 'delete /tmp/console.txt');
    await cardOf(page, '/tmp/console.txt').waitFor();

    const consolePage = await (await browser.newContext()).newPage();
    await consolePage.goto(base.replace(/chat\/$/, ''));
    await consolePage.getByLabel('API token').fill(token);
    await consolePage.getByLabel('Your name').fill('bo@example.com');
    await consolePage.getByRole('button', { name: 'Sign in', exact: true }).click();
    const consoleCard = consolePage.locator('article.card', { hasText: 'Delete /tmp/console.txt?' });
    await consoleCard.getByRole('button', { name: 'Approve', exact: true }).click();

    await page.getByText('Done: deleted /tmp/console.txt.').waitFor();
    expect(await page.locator('.decision').innerText()).toBe('approved by bo@example.com');
    expect(await cardOf(page, '/tmp/console.txt').count()).toBe(0);
  });

  it('after a reload mid-wait the card is still there, and still answers', async () => {
    const page = await chatPage('reload');
    await say(page, 'delete /tmp/reload.txt');
    await cardOf(page, '/tmp/reload.txt').waitFor();
    await page.reload();
    const card = cardOf(page, '/tmp/reload.txt');
    await card.waitFor();
    expect(await page.getByRole('region').count()).toBe(1);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('Done: deleted /tmp/reload.txt.').waitFor();
  });
});
