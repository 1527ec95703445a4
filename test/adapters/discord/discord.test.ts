import { type IncomingMessage, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  type LinkedRuntime,
  type ResumeMode,
  type RunEvent,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { createDiscordInteractions, createDiscordNotifier, escapeDiscord } from 'countersign/discord';
import { ed25519PublicKey, verifyEd25519 } from '../../../src/channels/discord/discord-signature.js';
import { renderDiscord, renderMessage, startDiscordApp, type DiscordApp } from './discord-client.js';
import {
  APPLICATION_ID,
  CHANNEL_ID,
  DISCORD_BOT_TOKEN,
  FIRST_MESSAGE_ID,
  startFakeDiscord,
  type DiscordFault,
  type FakeDiscord,
} from './fake-discord.js';

const ALICE = '1000000000000000001';
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

interface World {
  readonly runtime: LinkedRuntime;
  readonly fake: FakeDiscord;
  readonly app: DiscordApp;
  readonly sleeps: number[];
  readonly executed: string[];
  /** Starts a run whose deploy call waits for approval and posts its card; resolves with the run and the card's buttons. */
  ask(options?: {
    readonly origin?: { channel: string; address: string };
  }): Promise<{ runId: string; buttons: { approve: string; approveForRun: string; deny: string } }>;
  /** Clicks (or submits) as `user`, waits for the work left running; the interaction's token names its webhook. */
  /** Waits for the cards the notifier is posting or editing. */
  flush(): Promise<void>;
  interact(
    body: Record<string, unknown>,
    user?: string,
  ): Promise<{ answer: { type: number; data?: Record<string, unknown> }; token: string }>;
}

async function world(
  options: {
    readonly faults?: DiscordFault[];
    readonly approvers?: string[];
    readonly notes?: string[];
    readonly resumeMode?: ResumeMode;
  } = {},
): Promise<World> {
  const executed: string[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a service',
    input: z.object({ target: z.string(), notes: z.array(z.string()).optional() }),
    needsApproval: true,
    ...(options.approvers ? { approvers: options.approvers } : {}),
    execute: async ({ target }) => {
      executed.push(target);
      return `deployed ${target}`;
    },
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn('done')
      : toolCallTurn([{ name: 'deploy', args: { target: 'web', ...(options.notes ? { notes: options.notes } : {}) } }]),
  );
  const runtime = createRuntime({
    agents: [createAgent({ name: 'ops', model, tools: [deploy] })],
    store: createMemoryStore(),
    links: { secret: 'discord-test-link-secret-0123456789' },
  });
  const events: RunEvent[] = [];
  runtime.subscribe((event) => void events.push(event));
  const fake = await startFakeDiscord(options.faults ? { faults: options.faults } : {});
  const sleeps: number[] = [];
  const notifier = createDiscordNotifier({
    runtime,
    botToken: DISCORD_BOT_TOKEN,
    channelId: CHANNEL_ID,
    apiUrl: fake.apiUrl,
    sleep: async (ms) => void sleeps.push(ms),
  });
  runtime.subscribe((event) => void notifier.publish([event]));
  const app = await startDiscordApp((publicKey) =>
    createDiscordInteractions({
      runtime,
      publicKey,
      applicationId: APPLICATION_ID,
      apiUrl: fake.apiUrl,
      ...(options.resumeMode ? { resumeMode: options.resumeMode } : {}),
    }),
  );
  open.push(app, fake);
  let interactions = 0;
  return {
    runtime,
    fake,
    app,
    sleeps,
    executed,
    async ask(start = {}) {
      const run = await runtime.start('ops', { input: 'go', ...start });
      await notifier.flush();
      const card = fake.posts().at(-1)!.json as { components: { components: { custom_id: string }[] }[] };
      const [approve, approveForRun, deny] = card.components[0]!.components.map((button) => button.custom_id) as [
        string,
        string,
        string,
      ];
      return { runId: run.runId, buttons: { approve, approveForRun, deny } };
    },
    flush: () => notifier.flush(),
    async interact(body, user = ALICE) {
      const token = `interaction-token-${++interactions}`;
      const response = await app.send({
        id: String(interactions),
        application_id: APPLICATION_ID,
        token,
        member: { user: { id: user } },
        ...body,
      });
      expect(response.status).toBe(200);
      await app.settle();
      await notifier.flush();
      return { answer: (await response.json()) as { type: number; data?: Record<string, unknown> }, token };
    },
  };
}

const webhookCalls = (fake: FakeDiscord, token: string) =>
  fake.requests.filter((request) => request.path.startsWith(`/webhooks/${APPLICATION_ID}/${token}`));

describe('the signature check', () => {
  // RFC 8032, section 7.1: TEST 1, 2 and 3 (public key, message, signature). Discord signs with plain Ed25519.
  const vectors = [
    [
      'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
      '',
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    ],
    [
      '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
      '72',
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
    ],
    [
      'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
      'af82',
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
    ],
  ] as const;

  it.each(vectors)('accepts RFC 8032 vector with key %s and refuses it altered', (key, message, signature) => {
    const publicKey = ed25519PublicKey(key);
    expect(verifyEd25519(publicKey, Buffer.from(message, 'hex'), signature)).toBe(true);
    expect(verifyEd25519(publicKey, Buffer.from(`${message}00`, 'hex'), signature)).toBe(false);
    const flipped = (Number.parseInt(signature[0]!, 16) ^ 1).toString(16) + signature.slice(1);
    expect(verifyEd25519(publicKey, Buffer.from(message, 'hex'), flipped)).toBe(false);
    expect(verifyEd25519(publicKey, Buffer.from(message, 'hex'), 'not hex')).toBe(false);
  });

  it('answers a signed PING with a PONG and refuses a changed body, a changed timestamp, an old one and another key', async () => {
    const { app, runtime } = await world();
    expect(await (await app.send({ type: 1 })).json()).toEqual({ type: 1 });
    const refusals = [
      await app.send({ type: 1 }, { tamper: { body: (body) => body.replace('1', '2') } }),
      await app.send({ type: 1 }, { tamper: { timestamp: String(Math.floor(Date.now() / 1000) - 1) } }),
      await app.send({ type: 1 }, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
    ];
    // An app that signs with its own key, sending to a route that expects RFC 8032's TEST 1 key.
    const stranger = await startDiscordApp(() =>
      createDiscordInteractions({ runtime, publicKey: vectors[0][0], applicationId: APPLICATION_ID }),
    );
    open.push(stranger);
    refusals.push(await stranger.send({ type: 1 }));
    for (const response of refusals) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(((await response.json()) as { code: string }).code).toBe('invalid_discord_signature');
    }
  });

  it('refuses a stale timestamp, a missing signature and a declared length over the limit before reading the body', async () => {
    const { app } = await world();
    const now = Math.floor(Date.now() / 1000);
    const signature = 'ab'.repeat(64);
    const cases = [
      {
        headers: {
          'x-signature-timestamp': String(now - 301),
          'x-signature-ed25519': signature,
          'content-length': '1000',
        },
        status: 401,
      },
      { headers: { 'x-signature-timestamp': String(now), 'content-length': '1000' }, status: 401 },
      {
        headers: {
          'x-signature-timestamp': String(now),
          'x-signature-ed25519': signature,
          'content-length': String(10 * 1024 * 1024),
        },
        status: 413,
      },
    ];
    for (const { headers, status } of cases) {
      // Headers and the first bytes of a body that never ends: an answer can only come from the headers.
      const request = httpRequest(app.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      });
      request.on('error', () => undefined);
      const answered = new Promise<IncomingMessage>((resolve) => request.once('response', resolve));
      request.write('{"type":1,');
      const response = await answered;
      request.destroy();
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-type']).toBe('application/problem+json');
    }
  });
});

describe('buttons', () => {
  it('approves on a click: answered at once with a deferred update, then the card says who approved and how the run stands', async () => {
    const w = await world();
    const { runId, buttons } = await w.ask();
    const { answer, token } = await w.interact({ type: 3, data: { custom_id: buttons.approve, component_type: 2 } });
    expect(answer).toEqual({ type: 6 });
    const [edit] = webhookCalls(w.fake, token);
    expect(edit).toMatchObject({
      method: 'PATCH',
      path: `/webhooks/${APPLICATION_ID}/${token}/messages/@original`,
      json: { components: [], allowed_mentions: { parse: [] } },
    });
    expect(edit!.headers.authorization).toBeUndefined();
    expect(renderMessage(edit!.json).visible).toBe(`Approved by @${ALICE}: deploy, run is completed.`);
    expect(w.executed).toEqual(['web']);
    expect((await w.runtime.get(runId)).audit).toMatchObject([{ decision: 'approved', by: `discord:${ALICE}` }]);
  });

  it("records a click with resumeMode 'record' and says so on the card, leaving the run to the process that follows it", async () => {
    const w = await world({ resumeMode: 'record' });
    const { runId, buttons } = await w.ask();
    const { token } = await w.interact({ type: 3, data: { custom_id: buttons.approve, component_type: 2 } });
    expect(renderMessage(webhookCalls(w.fake, token)[0]!.json).visible).toBe(
      `Decision by @${ALICE} recorded; the run is carrying on.`,
    );
    expect(w.executed).toEqual([]);
    expect(await w.runtime.get(runId)).toMatchObject({
      status: 'running',
      audit: [{ decision: 'approved', by: `discord:${ALICE}` }],
    });
  });

  it('approves for the rest of the run from a DM click (user instead of member)', async () => {
    const w = await world();
    const { runId, buttons } = await w.ask();
    await w.interact({
      type: 3,
      member: undefined,
      user: { id: ALICE },
      data: { custom_id: buttons.approveForRun, component_type: 2 },
    });
    expect((await w.runtime.get(runId)).audit).toMatchObject([
      { decision: 'approved', scope: 'run', by: `discord:${ALICE}` },
    ]);
  });

  it('denies through a modal asking why, and records the reason', async () => {
    const w = await world();
    const { runId, buttons } = await w.ask();
    const clicked = await w.interact({ type: 3, data: { custom_id: buttons.deny, component_type: 2 } });
    expect(clicked.answer).toMatchObject({
      type: 9,
      data: {
        custom_id: buttons.deny,
        components: [{ type: 1, components: [{ type: 4, label: 'Why deny?', required: false }] }],
      },
    });
    expect((await w.runtime.get(runId)).status).toBe('awaitingApproval');
    const input = { type: 1, components: [{ type: 4, custom_id: 'reason', value: '  not on a Friday  ' }] };
    const submitted = await w.interact({ type: 5, data: { custom_id: buttons.deny, components: [input] } });
    expect(submitted.answer).toEqual({ type: 6 });
    expect(renderMessage(webhookCalls(w.fake, submitted.token)[0]!.json).visible).toBe(
      `Denied by @${ALICE}: deploy, run is completed.`,
    );
    expect((await w.runtime.get(runId)).audit).toMatchObject([
      { decision: 'denied', by: `discord:${ALICE}`, reason: 'not on a Friday' },
    ]);
    expect(w.executed).toEqual([]);
  });

  it('tells only the clicker when the approval stays open (someone who may not decide), leaving the buttons', async () => {
    const w = await world({ approvers: ['discord:42'] });
    const { runId, buttons } = await w.ask();
    const { token } = await w.interact({ type: 3, data: { custom_id: buttons.approve, component_type: 2 } });
    const [reply] = webhookCalls(w.fake, token);
    expect(reply).toMatchObject({ method: 'POST', path: `/webhooks/${APPLICATION_ID}/${token}`, json: { flags: 64 } });
    expect(renderMessage(reply!.json).visible).toBe(
      `@${ALICE} may not decide this approval; nothing was done. Ask one of its approvers.`,
    );
    expect((await w.runtime.get(runId)).status).toBe('awaitingApproval');
  });

  it('answers a button it does not know privately, and refuses interactions that are not its buttons', async () => {
    const w = await world();
    const unknown = await w.interact({ type: 3, data: { custom_id: 'cs:AAAAAAAAAAAAAAAAAAAAAA', component_type: 2 } });
    expect(unknown.answer).toMatchObject({
      type: 4,
      data: { flags: 64, content: 'These buttons have expired; nothing was done. Ask the agent again.' },
    });
    const command = await w.app.send({
      type: 2,
      token: 't',
      member: { user: { id: ALICE } },
      data: { name: 'deploy' },
    });
    expect(command.status).toBe(400);
    expect(((await command.json()) as { code: string }).code).toBe('unsupported_interaction');
  });
});

describe('the notifier', () => {
  it('posts to the Discord channel a run came from, and edits the card there once decided elsewhere', async () => {
    const w = await world();
    const elsewhere = '1100000000000000009';
    const { runId } = await w.ask({ origin: { channel: 'discord', address: elsewhere } });
    const [post] = w.fake.posts();
    expect(post).toMatchObject({ path: `/channels/${elsewhere}/messages`, json: { allowed_mentions: { parse: [] } } });
    expect(post!.headers.authorization).toBe(`Bot ${DISCORD_BOT_TOKEN}`);
    const approvalId = (await w.runtime.get(runId)).pendingApprovals[0]!.approvalId;
    await w.runtime.respond(runId, {
      approvalId,
      approved: false,
      approvedBy: 'bob@example.com',
      reason: 'use *staging*',
    });
    await w.flush();
    const edits = w.fake.requests.filter((request) => request.method === 'PATCH');
    expect(edits.map((edit) => edit.path)).toEqual([`/channels/${elsewhere}/messages/${FIRST_MESSAGE_ID}`]);
    expect(edits[0]!.json).toMatchObject({ components: [], allowed_mentions: { parse: [] } });
    expect(renderMessage(edits[0]!.json)).toEqual({
      visible: '❌ Denied by bob@example.com: use *staging*.',
      active: [],
    });
  });

  it("cuts long arguments visibly inside the code block, so the card stays within Discord's 4096 characters", async () => {
    const w = await world({ notes: Array.from({ length: 10 }, () => `${'x'.repeat(900)}\`\`\``) });
    await w.ask();
    const embed = (w.fake.posts()[0]!.json['embeds'] as { description: string }[])[0]!;
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embed.description).toMatch(/xx\n```\n… \(cut: \d+ characters in all\)$/);
    expect(renderMessage(w.fake.posts()[0]!.json).active).toEqual([]);
  });

  it("waits as long as a 429's JSON retry_after says (seconds, with fractions), before its whole-second Retry-After header", async () => {
    const w = await world({ faults: [{ status: 429, retryAfterSeconds: 1.5 }] });
    await w.ask();
    expect(w.sleeps).toEqual([1500]);
    expect(w.fake.posts()).toHaveLength(1);
  });

  it('refuses options by name, never quoting a token', async () => {
    const { runtime } = await world();
    const refusal = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return error as { code: string; message: string };
      }
      throw new Error('expected a refusal');
    };
    const token = refusal(() =>
      createDiscordNotifier({ runtime, botToken: `Bot ${DISCORD_BOT_TOKEN}`, channelId: CHANNEL_ID }),
    );
    expect(token).toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(/^createDiscordNotifier: botToken must be the bot token .*without "Bot "/),
    });
    expect(token.message).not.toContain(DISCORD_BOT_TOKEN);
    expect(
      refusal(() => createDiscordNotifier({ runtime, botToken: DISCORD_BOT_TOKEN, channelId: '#general' })).message,
    ).toMatch(/channelId must be a Discord id/);
    expect(
      refusal(() => createDiscordInteractions({ runtime, publicKey: 'zz', applicationId: APPLICATION_ID })).message,
    ).toMatch(/publicKey must be the application's public key/);
    expect(
      refusal(() =>
        createDiscordInteractions({
          runtime,
          publicKey: '00'.repeat(32),
          applicationId: APPLICATION_ID,
          resumeMode: 'enqueue',
        }),
      ),
    ).toMatchObject({
      code: 'missing_option',
    });
    const extra = { runtime, publicKey: '00'.repeat(32), applicationId: APPLICATION_ID, botToken: DISCORD_BOT_TOKEN };
    expect(refusal(() => createDiscordInteractions(extra as never))).toMatchObject({ code: 'unknown_option' });
  });
});

describe('escapeDiscord', () => {
  it.each([
    [
      '*bold* _it_ ~~gone~~ `code` ||spoiler|| [link](https://x.example)',
      '\\*bold\\* \\_it\\_ \\~\\~gone\\~\\~ \\`code\\` \\|\\|spoiler\\|\\| \\[link\\](https://x.example)',
    ],
    [
      '> quote\n# Title\n-# small\n  - item\n+ plus\n12. twelve\nnot # a heading',
      '\\> quote\n\\# Title\n\\-# small\n  \\- item\n\\+ plus\n12\\. twelve\nnot # a heading',
    ],
    [
      '@everyone @here <@123> <@!123> <@&456> <#789> <:emoji:1> <t:0>',
      '@\u200beveryone @\u200bhere <\u200b@123\\> <\u200b@!123\\> <\u200b@&456\\> <\u200b#789\\> <\u200b:emoji:1\\> <\u200bt:0\\>',
    ],
    ['C:\\path\\*', 'C:\\\\path\\\\\\*'],
  ])('escapes %j', (text, escaped) => {
    expect(escapeDiscord(text)).toBe(escaped);
  });

  it('any text reads as written and nothing in it is live', () => {
    const piece = fc.constantFrom(
      '*',
      '_',
      '~',
      '`',
      '|',
      '>',
      '<',
      '@everyone',
      '@here',
      '<@1>',
      '<#2>',
      '\\',
      '\n',
      '# ',
      '- ',
      '1. ',
      '[',
      ']',
      ' ',
      'a',
      '**',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string()), { maxLength: 20 }), (pieces) => {
        const text = pieces.join('');
        expect(renderDiscord(escapeDiscord(text))).toEqual({ visible: text.replace(/\u200b/g, ''), active: [] });
      }),
    );
  });
});
