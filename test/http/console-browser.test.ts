// The approver's console in a real browser (Debian's Chromium through playwright-core): sign in with the API token,
// cards arriving live over /events, the keyboard, the JSON editor, approve all, expiry, the no-script forms, a
// phone-sized screen and an axe-core accessibility check.
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentAsTool, createAgent, createMemoryRuleStore, createRuntime, defineTool } from 'countersign';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { inboxLinkUrl } from '../support/link-urls.js';
import { hasChromium, launchChromium } from '../support/chromium.js';

const TOKEN = 'console-browser-test-token';
const shots = 'test-results/console';

/** The scripted model reads its tool calls from the run's input: `[{ name, args }, ...]`. */
const model = createScriptedModel(({ messages }) =>
  messages.at(-1)?.role === 'tool'
    ? textTurn('done')
    : toolCallTurn(JSON.parse(messages.find((message) => message.role === 'user')!.content)),
);

/** A model that asks, turn by turn, for the calls its input lists: `[[turn 1's calls], [turn 2's], ...]`, then is done. */
const turnsModel = createScriptedModel(({ messages }) => {
  const turns = JSON.parse(messages.find((message) => message.role === 'user')!.content) as {
    name: string;
    args: unknown;
  }[][];
  const next = turns[messages.filter((message) => message.role === 'assistant').length];
  return next === undefined ? textTurn('done') : toolCallTurn(next);
});

/** A question's form: one choice, a number, a yes/no and an optional note. */
const CLUSTER = z.object({
  region: z.enum(['eu-west-1', 'us-east-1', 'ap-south-1']).meta({ title: 'Region' }),
  nodes: z.number().int().min(1).max(9).meta({ title: 'Nodes' }),
  public: z.boolean().meta({ title: 'Public' }),
  note: z.string().max(2000).optional().meta({ title: 'Note' }),
});

describe.skipIf(!hasChromium)('the console in Chromium', () => {
  let browser: Browser;
  let server: ServeHandle;
  const deleted: string[] = [];
  const deleteFile = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string().min(1) }),
    needsApproval: true,
    approvalPrompt: ({ path }) => `Delete ${path}?`,
    execute: ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
  const written: string[] = [];
  const writeFile = defineTool({
    name: 'write_file',
    description: 'Write a file',
    input: z.object({ path: z.string().min(1), content: z.string() }),
    needsApproval: true,
    approvalPrompt: ({ path }) => `Write ${path}?`,
    execute: ({ path }) => {
      written.push(path);
      return `wrote ${path}`;
    },
  });
  /** A tool a person may only deny (or dismiss): its card shows no Approve, and its keys do nothing else. */
  const refund = defineTool({
    name: 'refund',
    description: 'Refund a customer',
    input: z.object({ cents: z.number().int() }),
    needsApproval: true,
    decisions: ['deny'],
    execute: ({ cents }) => `refunded ${cents}`,
  });
  const decisionSecret = 'console-browser-decision-secret-0123456789';
  const rules = createMemoryRuleStore({ decisionSecret });
  const files = createAgent({ name: 'files', model, tools: [deleteFile], ruleStore: rules, decisionSecret });
  const agents = [
    files,
    createAgent({ name: 'hurried', model, tools: [deleteFile], approvalTtlMs: 1500 }),
    createAgent({ name: 'steps', model: turnsModel, tools: [deleteFile, writeFile], decisionSecret }),
    createAgent({ name: 'vetoes', model, tools: [refund], decisionSecret }),
    // Hands its task (the same JSON list of calls) to `files` as a sub-agent.
    createAgent({ name: 'lead', model, tools: [agentAsTool(files)], decisionSecret }),
  ];
  const runtime = createRuntime({ agents, links: { secret: 'console-browser-link-secret-0123456789' } });
  const start = (agent: string, ...paths: string[]) =>
    runtime.start(agent, { input: JSON.stringify(paths.map((path) => ({ name: 'delete_file', args: { path } }))) });
  /** A run of the `steps` agent: each turn's calls, in order. */
  const startTurns = (...turns: { name: string; args: unknown }[][]) =>
    runtime.start('steps', { input: JSON.stringify(turns) });

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    server = await serve(createApprovalApp(runtime, { bearerToken: TOKEN, rules }), { port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signIn(context: BrowserContext, name = 'alice@example.com'): Promise<Page> {
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByLabel('Your name').fill(name);
    await Promise.all([
      page.waitForURL(`${server.url}/`),
      page.getByRole('button', { name: 'Sign in', exact: true }).click(),
    ]);
    await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
    return page;
  }

  const card = (page: Page, runId: string) => page.locator('article.card', { hasText: runId });
  /** Makes the card current, and waits until it has been on the page long enough for Enter to count. */
  async function focusSettled(page: Page, runId: string) {
    // The script is running once it has shown the keyboard hint (it selects the first card as it starts).
    await page.locator('p.hint').waitFor();
    await card(page, runId).first().focus();
    await page.waitForTimeout(800);
  }

  it('signs in with the token (a wrong one is refused) into an HttpOnly, SameSite=Strict session', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByLabel('API token').fill('not-the-token-at-all');
    await page.getByLabel('Your name').fill('mallory');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('not right');
    expect(await context.cookies()).toEqual([]);
    await context.close();

    const signedIn = await browser.newContext();
    await signIn(signedIn);
    const [cookie] = await signedIn.cookies();
    expect(cookie).toMatchObject({ name: 'countersign_console', httpOnly: true, sameSite: 'Strict' });
    await signedIn.close();
  });

  it('a card appears live and the keyboard approves it; it reaches completed with the result', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    const errors: string[] = [];
    page.on('pageerror', (error) => void errors.push(error.message));
    const run = await start('files', '/tmp/live.txt');
    await card(page, run.runId).waitFor();
    expect(await card(page, run.runId).innerText()).toContain('Delete /tmp/live.txt?');
    await focusSettled(page, run.runId);
    await page.keyboard.press('Enter');
    await expect
      .poll(() => card(page, run.runId).locator('.state').innerText())
      .toContain('Completed: deleted /tmp/live.txt');
    await page.screenshot({ path: `${shots}/approved-by-keyboard.png` });
    expect((await runtime.get(run.runId)).audit.at(-1)).toMatchObject({
      decision: 'approved',
      by: 'alice@example.com',
      source: 'human',
    });
    expect(deleted).toContain('/tmp/live.txt');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a sub-agent's card names the chain of agents above its inner call, and approving it finishes the whole run", async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    const task = JSON.stringify([{ name: 'delete_file', args: { path: '/tmp/nested.txt' } }]);
    const run = await runtime.start('lead', { input: JSON.stringify([{ name: 'files', args: { task } }]) });
    await card(page, run.runId).waitFor();
    const shown = await card(page, run.runId).innerText();
    expect(shown).toContain('Delete /tmp/nested.txt?');
    expect(shown).toContain('Asked by sub-agent files: lead › files');
    await focusSettled(page, run.runId);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await runtime.get(run.runId)).status).toBe('completed');
    expect(deleted).toContain('/tmp/nested.txt');
    await context.close();
  });

  it('Escape asks for a reason, Escape again cancels, and Enter in the reason denies with it', async () => {
    const run = await start('files', '/etc/passwd');
    const context = await browser.newContext();
    const page = await signIn(context);
    await focusSettled(page, run.runId);
    await page.keyboard.press('Escape');
    const reason = card(page, run.runId).getByLabel('Reason');
    await expect.poll(() => reason.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    expect((await runtime.get(run.runId)).status).toBe('awaitingApproval');
    await page.keyboard.press('Escape');
    await reason.fill('never touch system files');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => card(page, run.runId).locator('.state').innerText())
      .toContain('Denied by alice@example.com: never touch system files');
    expect((await runtime.get(run.runId)).audit.at(-1)).toMatchObject({
      decision: 'denied',
      reason: 'never touch system files',
      by: 'alice@example.com',
    });
    expect(deleted).not.toContain('/etc/passwd');
    await context.close();
  });

  it('offers only the decisions the tool allows: a deny-only card has no Approve or Edit, Enter and e do nothing there, Escape denies', async () => {
    const run = await runtime.start('vetoes', { input: JSON.stringify([{ name: 'refund', args: { cents: 500 } }]) });
    const context = await browser.newContext();
    const page = await signIn(context);
    const vetoed = card(page, run.runId);
    await page.locator('p.hint').waitFor();
    const actions = await vetoed
      .locator('[data-action]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-action')));
    expect(actions).toEqual(['deny', 'dismiss', 'cancel-run']);
    const posted: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/console/decide')) posted.push(JSON.parse(request.postData() ?? '{}').decision);
    });
    // The page's clock moves past the time a card must have been shown before a key counts, without waiting for it.
    await page.clock.install();
    await page.clock.fastForward(1000);
    await vetoed.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('e');
    await page.keyboard.press('Escape');
    await vetoed.getByLabel('Reason').fill('no refunds today');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => vetoed.locator('.state').innerText())
      .toContain('Denied by alice@example.com: no refunds today');
    expect(await page.getByRole('dialog', { name: 'Edit arguments' }).count()).toBe(0);
    expect(posted).toEqual(['deny']);
    expect((await runtime.get(run.runId)).audit.map((entry) => [entry.decision, entry.by])).toEqual([
      ['denied', 'alice@example.com'],
    ]);
    await context.close();
  });

  it('an edit that breaks the schema is refused in the page; a valid one runs with the edited arguments', async () => {
    const run = await start('files', '/home/alice/everything');
    const context = await browser.newContext();
    const page = await signIn(context);
    await focusSettled(page, run.runId);
    await page.keyboard.press('e');
    const editor = page.getByRole('dialog', { name: 'Edit arguments' });
    await editor.getByLabel('Arguments (JSON)').fill('{ "path": 42 }');
    await editor.getByRole('button', { name: 'Approve with these arguments' }).click();
    await expect.poll(() => editor.getByRole('alert').innerText()).toContain('/path: must be string');
    await page.screenshot({ path: `${shots}/invalid-edit.png` });
    expect((await runtime.get(run.runId)).status).toBe('awaitingApproval');
    await editor.getByLabel('Arguments (JSON)').fill('{ "path": "/home/alice/tmp" }');
    await editor.getByRole('button', { name: 'Approve with these arguments' }).click();
    await expect
      .poll(() => card(page, run.runId).locator('.state').innerText())
      .toContain('Completed: deleted /home/alice/tmp');
    expect(deleted).toContain('/home/alice/tmp');
    expect(deleted).not.toContain('/home/alice/everything');
    await context.close();
  });

  it('an approved card says what its run still waits for, not that it runs, until the last request is decided', async () => {
    await startTurns([
      { name: 'delete_file', args: { path: '/tmp/waits-1' } },
      { name: 'write_file', args: { path: '/tmp/waits-2', content: 'x' } },
    ]);
    const context = await browser.newContext();
    const page = await signIn(context);
    const first = page.locator('article.card', { hasText: 'Delete /tmp/waits-1?' });
    const second = page.locator('article.card', { hasText: 'Write /tmp/waits-2?' });
    // The script is running once it has shown the keyboard hint: the click is then the script's, not a form post.
    await page.locator('p.hint').waitFor();
    await first.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect
      .poll(() => first.locator('.state').innerText())
      .toBe('Approved by alice@example.com; the run waits for 1 more decision: write_file');
    expect(deleted).not.toContain('/tmp/waits-1');
    await second.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => first.locator('.state').innerText()).toBe('Completed: deleted /tmp/waits-1');
    await expect.poll(() => second.locator('.state').innerText()).toBe('Completed: wrote /tmp/waits-2');
    await context.close();
  });

  it("shows times in the browser's time zone (the ISO time in the title), the request, and a text argument's lines", async () => {
    const run = await startTurns([
      { name: 'write_file', args: { path: '/tmp/local.txt', content: 'first line\nsecond line' } },
    ]);
    const context = await browser.newContext({ timezoneId: 'Asia/Kathmandu', locale: 'en-GB' });
    const page = await signIn(context);
    await page.locator('p.hint').waitFor();
    const shown = card(page, run.runId);
    const requested = shown.locator('.times time').first();
    const iso = new Date(run.pendingApprovals[0]!.requestedAt).toISOString();
    expect(await requested.getAttribute('title')).toBe(iso);
    // Kathmandu is UTC+05:45 all year.
    const local = new Date(run.pendingApprovals[0]!.requestedAt + (5 * 60 + 45) * 60_000).toISOString().slice(11, 16);
    await expect.poll(() => requested.innerText()).toContain(local);
    expect(await requested.innerText()).not.toContain('UTC');
    expect(await shown.getByLabel('Argument content').innerText()).toBe('first line\nsecond line');
    expect(await shown.locator('.context blockquote').first().innerText()).toContain('/tmp/local.txt');
    await context.close();
  });

  it('a asks first, listing each call it would approve: Escape approves nothing, Enter approves them all', async () => {
    const run = await start('files', '/tmp/a', '/tmp/b');
    const context = await browser.newContext();
    const page = await signIn(context);
    await expect.poll(() => card(page, run.runId).count()).toBe(2);
    await focusSettled(page, run.runId);
    await page.keyboard.press('a');
    const confirm = page.getByRole('dialog', { name: `Approve 2 calls of run ${run.runId}?` });
    await confirm.waitFor();
    expect(await confirm.getByRole('listitem').allInnerTexts()).toEqual(
      expect.arrayContaining(['delete_file Delete /tmp/a?', 'delete_file Delete /tmp/b?']),
    );
    await page.screenshot({ path: `${shots}/approve-all-confirm.png` });
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    expect((await runtime.get(run.runId)).audit).toEqual([]);

    await page.keyboard.press('a');
    await confirm.waitFor();
    await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/console/decide-all')),
      page.keyboard.press('Enter'),
    ]);
    for (const path of ['/tmp/a', '/tmp/b']) {
      await expect
        .poll(() =>
          page
            .locator('article.card', { hasText: `Delete ${path}?` })
            .locator('.state')
            .innerText(),
        )
        .toContain(`Completed: deleted ${path}`);
    }
    expect((await runtime.get(run.runId)).status).toBe('completed');
    await context.close();
  });

  it('Approve all sends only the calls its confirmation listed: a request that arrives while it is open waits', async () => {
    const run = await startTurns(
      [
        { name: 'delete_file', args: { path: '/tmp/seen-1' } },
        { name: 'delete_file', args: { path: '/tmp/seen-2' } },
      ],
      [{ name: 'delete_file', args: { path: '/tmp/arrived-later' } }],
    );
    const context = await browser.newContext();
    const page = await signIn(context);
    await focusSettled(page, run.runId);
    await page.keyboard.press('a');
    const confirm = page.getByRole('dialog', { name: `Approve 2 calls of run ${run.runId}?` });
    await confirm.waitFor();
    // Someone else decides the two listed calls meanwhile; the run goes on and asks for a third.
    for (const request of run.pendingApprovals) {
      await runtime.respond(run.runId, {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'bob@example.com',
        signature: request.signature!,
      });
    }
    const later = page.locator('article.card', { hasText: 'Delete /tmp/arrived-later?' });
    await later.waitFor({ state: 'attached' });
    const answered = page.waitForResponse((response) => response.url().endsWith('/console/decide-all'));
    await page.keyboard.press('Enter');
    const body = JSON.parse((await answered).request().postData()!) as { approvalIds: string[] };
    expect(body.approvalIds.sort()).toEqual(run.pendingApprovals.map((request) => request.approvalId).sort());
    const after = await runtime.get(run.runId);
    expect(after.status).toBe('awaitingApproval');
    expect(after.pendingApprovals.map((request) => request.args)).toEqual([{ path: '/tmp/arrived-later' }]);
    expect(await later.getAttribute('data-state')).toBe('pending');
    await context.close();
  });

  it('a card whose time runs out shows expired and can no longer be approved', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    const run = await start('hurried', '/tmp/late');
    await card(page, run.runId).waitFor();
    await expect
      .poll(() => card(page, run.runId).locator('.state').innerText(), { timeout: 10_000 })
      .toContain('Expired');
    expect(await card(page, run.runId).getByRole('button', { name: 'Approve', exact: true }).isVisible()).toBe(false);
    await page.screenshot({ path: `${shots}/expired.png` });
    await context.close();
  });

  it('answers a question card from the keyboard: a refused answer shows under its field, the corrected one is recorded', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    const asked = await runtime.requestInput({ question: 'How many nodes for blue?', answer: CLUSTER });
    const question = card(page, asked.id);
    await question.waitFor();
    expect(await question.innerText()).toContain('How many nodes for blue?');
    await focusSettled(page, asked.id);
    // Enter on a question card goes to its form; arrows pick a radio, Space ticks a box, the rest is typed.
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('eu-west-1');
    await page.keyboard.press('ArrowDown');
    await question.getByLabel('Nodes').fill('12');
    await question.getByLabel('Public').check();
    await question.getByLabel('Note').fill('first of many');
    // The browser's own checks would stop 12 before it is sent: the server's are the ones that count.
    await question.locator('form.question').evaluate((form) => ((form as HTMLFormElement).noValidate = true));
    await question.getByLabel('Nodes').press('Enter');
    await expect
      .poll(() => question.locator('.field[data-field=nodes] .field-error').innerText())
      .toBe('Nodes must be at most 9');
    expect(await question.locator('.state').innerText()).toMatch(/^Not recorded: /);
    expect((await runtime.get(asked.id)).audit).toEqual([]);
    await question.getByLabel('Nodes').fill('4');
    await page.keyboard.press('Enter');
    // Answered, then (the request's run ends at once) completed.
    await expect.poll(() => question.getAttribute('data-state')).toMatch(/^(approved|completed)$/);
    expect(await question.locator('.field-error').count()).toBe(0);
    expect(await asked.status()).toMatchObject({
      status: 'approved',
      by: 'alice@example.com',
      answer: { region: 'us-east-1', nodes: 4, public: true, note: 'first of many' },
    });
    await context.close();
  });

  it('answers and declines questions without JavaScript, through the form', async () => {
    const answered = await runtime.requestInput({ question: 'Nodes?', answer: CLUSTER });
    const declined = await runtime.requestInput({ question: 'Nodes again?', answer: CLUSTER });
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await signIn(context, 'dora@example.com');
    const posted = () => page.waitForResponse((response) => response.url().endsWith('/console/decide'));
    await card(page, answered.id).getByLabel('ap-south-1').check();
    await card(page, answered.id).getByLabel('Nodes').fill('2');
    await Promise.all([posted(), card(page, answered.id).getByRole('button', { name: 'Answer', exact: true }).click()]);
    await page.waitForLoadState();
    expect(await answered.status()).toMatchObject({
      status: 'approved',
      by: 'dora@example.com',
      answer: { region: 'ap-south-1', nodes: 2, public: false },
    });
    await Promise.all([
      posted(),
      card(page, declined.id).getByRole('button', { name: 'Decline', exact: true }).click(),
    ]);
    await page.waitForLoadState();
    expect(await declined.status()).toMatchObject({ status: 'denied', by: 'dora@example.com' });
    await context.close();
  });

  it('approves and denies without JavaScript, through the forms', async () => {
    const approveRun = await start('files', '/tmp/nojs-approve');
    const denyRun = await start('files', '/tmp/nojs-deny');
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await signIn(context, 'bob@example.com');
    const posted = () => page.waitForResponse((response) => response.url().endsWith('/console/decide'));
    await Promise.all([
      posted(),
      card(page, approveRun.runId).getByRole('button', { name: 'Approve', exact: true }).click(),
    ]);
    await page.waitForLoadState();
    expect((await runtime.get(approveRun.runId)).status).toBe('completed');
    await card(page, denyRun.runId).getByLabel('Reason').fill('not today');
    await Promise.all([posted(), card(page, denyRun.runId).getByRole('button', { name: 'Deny', exact: true }).click()]);
    await page.waitForLoadState();
    expect((await runtime.get(denyRun.runId)).audit.at(-1)).toMatchObject({
      decision: 'denied',
      by: 'bob@example.com',
      reason: 'not today',
    });
    expect(await card(page, approveRun.runId).count()).toBe(0);
    await context.close();
  });

  it('searches the history by person and decision, and exports the search as JSON Lines', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByLabel('Person').fill('bob');
    await page.getByLabel('Decision').selectOption('denied');
    await Promise.all([page.waitForURL(/decision=denied/), page.getByRole('button', { name: 'Search' }).click()]);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('not today');
    await page.screenshot({ path: `${shots}/history.png` });
    const exported = await page.request.get(
      await page.getByRole('link', { name: 'Export JSON Lines' }).evaluate((link) => (link as HTMLAnchorElement).href),
    );
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        toolName: 'delete_file',
        decision: 'denied',
        by: 'bob@example.com',
        reason: 'not today',
      }),
    ]);
    await context.close();
  });

  it('a rule added on the rules page takes effect on the next call; disabled, the tool asks again', async () => {
    const context = await browser.newContext();
    const page = await signIn(context);
    await page.getByRole('link', { name: 'Rules' }).click();
    expect(await page.locator('main').innerText()).toContain('deny beats ask beats allow');
    await page.getByLabel('Tool (a name or a glob such as search_*)').fill('delete_file');
    await page.getByLabel('Agent (empty: every agent)').fill('files');
    await page.getByLabel('Action').selectOption('allow');
    await page.getByLabel('Reason').fill('cleanup week');
    await Promise.all([page.waitForURL(/\/console\/rules$/), page.getByRole('button', { name: 'Add rule' }).click()]);
    expect(await page.locator('tbody tr').first().innerText()).toContain('cleanup week');
    await page.screenshot({ path: `${shots}/rules.png` });
    const allowed = await start('files', '/tmp/by-rule');
    expect(allowed.status).toBe('completed');
    expect(deleted).toContain('/tmp/by-rule');

    await Promise.all([page.waitForURL(/\/console\/rules$/), page.getByRole('button', { name: 'Disable' }).click()]);
    expect((await start('files', '/tmp/asked-again')).status).toBe('awaitingApproval');
    await Promise.all([page.waitForURL(/\/console\/rules$/), page.getByRole('button', { name: 'Delete' }).click()]);
    expect(await rules.list()).toEqual([]);
    await context.close();
  });

  it('a bounded grant that then covers the next call: approved for the session twice, revoked on the grants page', async () => {
    const inSession = (path: string) =>
      runtime.start('files', {
        input: JSON.stringify([{ name: 'delete_file', args: { path } }]),
        sessionId: 'chat-browser',
      });
    const first = await inSession('/tmp/session-1');
    const context = await browser.newContext();
    const page = await signIn(context);
    const firstCard = card(page, first.runId);
    await firstCard.waitFor();
    expect(await firstCard.getByRole('button', { name: 'Approve for this run' }).count()).toBe(0);
    await firstCard.getByLabel('Times').fill('2');
    await firstCard.getByRole('button', { name: 'Approve for this session' }).click();
    await expect.poll(() => firstCard.locator('.state').innerText()).toContain('Completed');

    const covered = await inSession('/tmp/session-2');
    expect(covered.status).toBe('completed');
    expect(covered.audit.at(-1)).toMatchObject({ decision: 'approved', source: 'grant', by: 'alice@example.com' });
    expect(deleted).toContain('/tmp/session-2');

    await page.getByRole('link', { name: 'Grants' }).click();
    const row = page.locator('tbody tr', { hasText: 'chat-browser' });
    expect(await row.innerText()).toContain('1 of 2 uses left');
    await page.screenshot({ path: `${shots}/grants.png` });
    await Promise.all([page.waitForURL(/\/console\/grants$/), row.getByRole('button', { name: /Revoke/ }).click()]);
    expect(await page.locator('main').innerText()).toContain('No live grants.');
    expect((await inSession('/tmp/session-3')).status).toBe('awaitingApproval');
    await context.close();
  });

  it('signs in with an inbox link as its reviewer', async () => {
    const run = await start('files', '/tmp/inbox');
    const inbox = await inboxLinkUrl(runtime, 'carol@example.com', {}, server.url);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByLabel('Inbox link').fill(inbox.url);
    await Promise.all([
      page.waitForURL(`${server.url}/`),
      page.getByRole('button', { name: 'Sign in as its reviewer' }).click(),
    ]);
    expect(await page.locator('header').innerText()).toContain('carol@example.com');
    await focusSettled(page, run.runId);
    await page.keyboard.press('Enter');
    await expect.poll(() => card(page, run.runId).locator('.state').innerText()).toContain('Completed');
    expect((await runtime.get(run.runId)).audit.at(-1)).toMatchObject({
      decision: 'approved',
      by: 'carol@example.com',
    });
    await context.close();
  });

  it("refuses a sign-in another site's page posts (login CSRF): the browser gets no session", async () => {
    const inbox = await inboxLinkUrl(runtime, 'mallory@example.com', {}, server.url);
    // The other site: the same loopback address under another name and port, whose page posts a form to the console.
    const target = `${server.url.replace('127.0.0.1', 'localhost')}/console/session`;
    const html = `<!doctype html><form method="post" action="${target}"><input name="inbox" value="${inbox.url}"></form><script>document.forms[0].submit()</script>`;
    const other = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end(html),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const answered = page.waitForResponse((response) => response.url() === target);
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const response = await answered;
      expect(response.status()).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'cross_site_sign_in' });
      expect((await context.cookies(target)).map((cookie) => cookie.name)).not.toContain('countersign_console');
    } finally {
      await context.close();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('is usable at 360 px and has no serious accessibility violations (axe-core)', { timeout: 90_000 }, async () => {
    await start('files', '/var/log/app.log');
    await start('files', '/srv/reports/q3.pdf', '/srv/reports/q4.pdf');
    const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
    const page = await signIn(context);
    await page.locator('article.card').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    // Evaluated through the debugging protocol: the console's CSP refuses inline scripts, as it should.
    await page.evaluate(readFileSync('node_modules/axe-core/axe.min.js', 'utf8'));
    const violations = (await page.evaluate('axe.run().then((result) => result.violations)')) as {
      id: string;
      impact: string;
      nodes: unknown[];
    }[];
    expect(violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')).toEqual(
      [],
    );
    await page.screenshot({ path: `${shots}/phone.png`, fullPage: true });
    await context.close();

    const wide = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const shot = await signIn(wide);
    await shot.goto(`${server.url}/?agent=files`);
    await shot.locator('article.card:not([hidden])').first().waitFor();
    // The README's picture is refreshed only when asked (UPDATE_README_SCREENSHOT=1), so a test run leaves the tree clean.
    await shot.screenshot({
      path: process.env['UPDATE_README_SCREENSHOT'] === '1' ? 'docs/console.png' : `${shots}/console.png`,
    });
    await wide.close();
  });
});
