// The one-click link flow in a real browser (Debian's Chromium through
// playwright-core): the confirmation page renders what will run, its
// security headers do not stop its own form, and the click decides the run.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createRuntime, defineTool } from 'countersign';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { linkUrls, inboxLinkUrl } from '../support/link-urls.js';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { WHOLE_FORM } from '../support/question-world.js';

describe.skipIf(!hasChromium)('one-click approval links in Chromium', () => {
  let browser: Browser;
  let server: ServeHandle;
  const executed: string[] = [];
  const runtime = createRuntime({
    agents: [
      createAgent({
        name: 'mailer',
        tools: [
          defineTool({
            name: 'send_email',
            description: 'Send an email',
            input: z.object({ to: z.string(), body: z.string(), apiToken: z.string() }),
            approvalPrompt: ({ to }) => `Email ${to}?`,
            execute: ({ to }) => void executed.push(to),
          }),
        ],
        model: createScriptedModel(({ messages }) =>
          messages.at(-1)?.role === 'tool'
            ? textTurn('sent')
            : toolCallTurn('send_email', {
                to: 'ceo@pаypal.com',
                body: '<script>alert(1)</script> pay \u202Enow',
                apiToken: 'tok_live_secret',
              }),
        ),
      }),
    ],
    links: { secret: 'browser-test-link-secret-0123456789' },
  });

  beforeAll(async () => {
    server = await serve(createApprovalApp(runtime, { bearerToken: 'browser-test-token' }), { port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the call with secrets redacted and warnings, and approves on click', async () => {
    const paused = await runtime.start('mailer', { input: 'email the CEO' });
    const request = paused.pendingApprovals[0]!;
    const links = await linkUrls(
      runtime,
      paused.runId,
      request.approvalId,
      { approvedBy: 'alice@example.com' },
      server.url,
    );
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => void dialogs.push(dialog.message()));
    const response = await page.goto(links.approve);
    expect(response?.status()).toBe(200);
    const text = await page.locator('body').innerText();
    expect(text).toContain('send_email');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain('tok_live_secret');
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).toMatch(/bidi|right-to-left|U\+202E/i);
    expect(text).toMatch(/mixed|look-alike|script/i);
    // Opening the page decided nothing.
    expect((await runtime.get(paused.runId)).status).toBe('awaitingApproval');

    await Promise.all([
      page.waitForLoadState('load'),
      page.locator('form button[type=submit], form button').first().click(),
    ]);
    await page.waitForFunction(() => document.body.innerText.includes('completed'));
    expect(await page.locator('body').innerText()).toContain('Approved');
    expect(dialogs).toEqual([]);
    const done = await runtime.get(paused.runId);
    expect(done.status).toBe('completed');
    expect(done.audit.at(-1)).toMatchObject({ decision: 'approved', by: 'alice@example.com', source: 'human' });
    expect(executed).toEqual(['ceo@pаypal.com']);

    // The same link again, in the browser: already used.
    const again = await page.goto(links.approve);
    expect(again?.status()).toBe(410);
    await page.close();
  });

  it('answers a question on its link page from the keyboard: the typed values arrive typed', async () => {
    const handle = await runtime.requestInput({ question: 'Where should <b>blue</b> run?', answer: WHOLE_FORM });
    const { request } = (await handle.status()) as { request: { approvalId: string } };
    const links = await linkUrls(
      runtime,
      handle.id,
      request.approvalId,
      { approvedBy: 'carol@example.com' },
      server.url,
    );
    const page = await browser.newPage();
    expect((await page.goto(links.approve))?.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toBe('Where should <b>blue</b> run?');
    // Radios move with the arrow keys; boxes tick with Space; the rest is typed.
    await page.getByLabel('eu-west-1').focus();
    await page.keyboard.press('ArrowDown');
    await page.getByLabel('a', { exact: true }).focus();
    await page.keyboard.press('Space');
    await page.getByLabel('c', { exact: true }).focus();
    await page.keyboard.press('Space');
    await page.getByLabel('note').fill('first of many');
    await page.getByLabel('nodes').fill('4');
    await page.getByLabel('Yes').focus();
    await page.keyboard.press('Space');
    await page.getByLabel('launch').fill('2026-04-01');
    await page.getByLabel('Cluster name').fill('blue');
    await Promise.all([page.waitForLoadState('load'), page.keyboard.press('Enter')]);
    await page.waitForFunction(() => document.body.innerText.includes('Answered'));
    expect(await handle.status()).toMatchObject({
      status: 'approved',
      by: 'carol@example.com',
      answer: {
        region: 'us-east-1',
        zones: ['a', 'c'],
        name: 'blue',
        note: 'first of many',
        nodes: 4,
        public: true,
        launch: '2026-04-01',
      },
    });
    await page.close();
  });

  it('a reviewer works through the inbox: two waiting, approve one, the other is still there', async () => {
    const first = await runtime.start('mailer', { input: 'email the CEO' });
    const second = await runtime.start('mailer', { input: 'email the CEO again' });
    const inbox = await inboxLinkUrl(runtime, 'bob@example.com', {}, server.url);
    const page = await browser.newPage();
    const url = inbox.url;
    expect((await page.goto(url))?.status()).toBe(200);
    expect(await page.locator('section.item').count()).toBeGreaterThanOrEqual(2);
    const firstItem = page.locator('section.item', { hasText: first.runId });
    await expect.poll(() => firstItem.count()).toBe(1);
    await Promise.all([
      page.waitForLoadState('load'),
      firstItem.getByRole('button', { name: 'Approve', exact: true }).click(),
    ]);
    await page.waitForFunction(() => document.body.innerText.includes('completed'));
    expect((await runtime.get(first.runId)).audit.at(-1)).toMatchObject({
      decision: 'approved',
      by: 'bob@example.com',
    });
    expect((await runtime.get(second.runId)).status).toBe('awaitingApproval');
    await page.goto(url);
    expect(await page.locator('section.item', { hasText: first.runId }).count()).toBe(0);
    expect(await page.locator('section.item', { hasText: second.runId }).count()).toBe(1);
    await page.close();
  });
});
