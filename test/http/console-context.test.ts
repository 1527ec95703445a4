// What an approver reads on the console besides the call: the turn's request and the agent's words (token sessions
// only), multi-line arguments as text, times the browser can show locally, and an edit as a diff in the history.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createRuntime, defineTool } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { inboxLinkUrl } from '../support/link-urls.js';

const TOKEN = 'console-context-token-0123456789';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const NOTES = 'line one\nline two <b>bold</b>\nline three';

function setup() {
  const writeFile = defineTool({
    name: 'write_file',
    description: 'Write a file',
    input: z.object({ path: z.string().min(1), content: z.string() }),
    needsApproval: true,
    execute: ({ path }) => `wrote ${path}`,
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn('done')
      : toolCallTurn(
          'write_file',
          { path: '/tmp/notes.txt', content: NOTES },
          'I will save your notes.\nThen I am done \u202Eevil',
        ),
  );
  const runtime = createRuntime({
    agents: [createAgent({ name: 'files', model, tools: [writeFile] })],
    links: { secret: 'console-context-link-secret-0123456789' },
  });
  const app = createApprovalApp(runtime, { bearerToken: TOKEN });
  const signIn = async (fields: Record<string, string>) => {
    const response = await app.request('/console/session', {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams(fields).toString(),
    });
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await app.request('/', { headers: { cookie } })).text();
    return { cookie, page, csrf: /data-csrf="([^"]+)"/.exec(page)![1]! };
  };
  const start = () =>
    runtime.start('files', {
      input: [
        { role: 'user', content: 'An older request' },
        { role: 'assistant', content: 'Sure.' },
        { role: 'user', content: 'Please save my notes\nto /tmp' },
      ],
    });
  return { runtime, app, signIn, start };
}

describe('the console shows what led to a call', () => {
  it("a token session's card shows the user's last request and the agent's words, through the display filter, newlines kept", async () => {
    const { app, signIn, start } = setup();
    await start();
    const { page, cookie } = await signIn({ token: TOKEN, name: 'alice' });
    for (const html of [page, await (await app.request('/console/cards', { headers: { cookie } })).text()]) {
      expect(html).toContain(
        '<figcaption>The request</figcaption><blockquote class="text">Please save my notes\nto /tmp</blockquote>',
      );
      expect(html).toContain(
        '<figcaption>The agent said</figcaption><blockquote class="text">I will save your notes.\nThen I am done [U+202E]evil</blockquote>',
      );
      expect(html).not.toContain('An older request');
    }
  });

  it('an inbox session sees neither the request nor the agent’s words: no more than the inbox shows', async () => {
    const { runtime, app, signIn, start } = setup();
    await start();
    const { page, cookie } = await signIn({ inbox: (await inboxLinkUrl(runtime, 'carol')).url });
    expect(page).toContain('Signed in as <strong>carol</strong>');
    for (const html of [page, await (await app.request('/console/cards', { headers: { cookie } })).text()]) {
      expect(html).toContain('write_file');
      expect(html).not.toContain('Please save my notes');
      expect(html).not.toContain('I will save your notes');
    }
  });

  it('a multi-line text argument is a text block with its lines, escaped, not a JSON string', async () => {
    const { signIn, start } = setup();
    await start();
    const { page } = await signIn({ token: TOKEN, name: 'alice' });
    expect(page).toContain(
      '<pre class="text-block" aria-label="Argument content">line one\nline two &lt;b&gt;bold&lt;/b&gt;\nline three</pre>',
    );
    expect(page).toContain('<code>content</code>: text, 3 lines');
    const json = /<pre class="args" aria-label="Arguments">([^<]*)<\/pre>/.exec(page)![1]!;
    expect(json).toContain('&quot;path&quot;: &quot;/tmp/notes.txt&quot;');
    expect(json).not.toContain('line one');
  });

  it('writes times for the browser to show locally: the ISO time in datetime and title', async () => {
    const { signIn, start } = setup();
    const run = await start();
    const { page } = await signIn({ token: TOKEN, name: 'alice' });
    const iso = new Date(run.pendingApprovals[0]!.requestedAt).toISOString();
    expect(page).toContain(
      `Requested <time datetime="${iso}" title="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`,
    );
  });

  it('the history shows an edit made on the console as a diff of the original and the edited arguments', async () => {
    const { runtime, app, signIn, start } = setup();
    const run = await start();
    const { cookie, csrf } = await signIn({ token: TOKEN, name: 'alice' });
    const decided = await app.request('/console/decide', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, cookie },
      body: JSON.stringify({
        runId: run.runId,
        approvalId: run.pendingApprovals[0]!.approvalId,
        decision: 'approve',
        args: { path: '/tmp/notes.txt', content: 'line one\nline 2\nline three' },
      }),
    });
    expect(decided.status).toBe(200);
    expect((await runtime.get(run.runId)).status).toBe('completed');
    const history = await (await app.request('/console/history', { headers: { cookie } })).text();
    expect(history).toContain('approved, with edited arguments');
    expect(history).toContain('<del>- | line two &lt;b&gt;bold&lt;/b&gt;</del><ins>+ | line 2</ins>');
    expect(history).toContain('  | line one\n');
    expect(history).toContain('  | line three\n');
  });
});
