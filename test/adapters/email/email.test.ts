// The email channel end to end: a real SMTP server on loopback receives the mails, and the approval app on a real
// socket serves the links they carry.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  isCountersignError,
  type LinkedRuntime,
  type RunEvent,
} from 'countersign';
import { createEmailNotifier, type EmailNotifierOptions } from 'countersign/email';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { approvalSubject } from '../../../src/channels/email/email-headers.js';
import { startFakeSmtp, type FakeSmtp } from '../../support/fake-smtp.js';
import { activeInHtml, clickLink, linkOf, visibleText } from './mail-reading.js';

const ALICE = 'alice@example.test';
const BOB = 'bob@example.test';
const SMTP_PASSWORD = 'smtp-secret-password-0a1b2c';

interface World {
  readonly runtime: LinkedRuntime;
  readonly events: RunEvent[];
  readonly smtp: FakeSmtp;
  readonly server: ServeHandle;
  readonly sleeps: number[];
  readonly errors: unknown[];
  notifier(options?: Partial<EmailNotifierOptions>): ReturnType<typeof createEmailNotifier>;
}

const open: World[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => Promise.all([w.smtp.close(), w.server.close()])));
});

async function world(options: { readonly description?: string; readonly auth?: boolean } = {}): Promise<World> {
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a service',
    input: z.object({ target: z.string() }),
    needsApproval: true,
    approvalPrompt: () => options.description ?? 'Deploy the web service',
    execute: async ({ target }) => `deployed ${target}`,
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn([{ name: 'deploy', args: { target: 'web' } }]),
  );
  const runtime = createRuntime({
    agents: [createAgent({ name: 'ops', model, tools: [deploy] })],
    store: createMemoryStore(),
    links: { secret: 'email-test-link-secret-0123456789' },
  });
  const events: RunEvent[] = [];
  runtime.subscribe((event) => void events.push(event));
  const auth = options.auth ? { user: 'countersign', pass: SMTP_PASSWORD } : undefined;
  const smtp = await startFakeSmtp(auth === undefined ? {} : { auth });
  const server = await serve(createApprovalApp(runtime, { insecure: true }), { port: 0 });
  const sleeps: number[] = [];
  const errors: unknown[] = [];
  const w: World = {
    runtime,
    events,
    smtp,
    server,
    sleeps,
    errors,
    notifier: (overrides = {}) =>
      createEmailNotifier({
        runtime,
        baseUrl: server.url,
        from: 'Approvals <approvals@example.test>',
        to: [ALICE, BOB],
        smtp: {
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          ignoreTLS: true,
          ...(auth === undefined ? {} : { auth }),
        },
        sleep: async (ms) => void sleeps.push(ms),
        onError: (error) => void errors.push(error),
        ...overrides,
      }),
  };
  open.push(w);
  return w;
}

/** Starts a run and mails its approval; resolves with the run. */
async function ask(w: World, notifier = w.notifier(), origin?: { channel: string; address: string }) {
  const run = await w.runtime.start('ops', { input: 'go', ...(origin === undefined ? {} : { origin }) });
  await notifier.publish(w.events.splice(0));
  await notifier.flush();
  return run;
}

const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('createEmailNotifier', () => {
  it('mails each recipient links minted for them, and a click records that recipient as the decider', async () => {
    const w = await world();
    const run = await ask(w);
    const [alice, bob] = [w.smtp.inbox(ALICE), w.smtp.inbox(BOB)];
    expect(alice).toHaveLength(1);
    expect(bob).toHaveLength(1);
    expect(alice[0]!.mail.header('subject')).toBe('Approval needed: deploy for ops');
    expect(alice[0]!.mail.header('message-id')).not.toBe(bob[0]!.mail.header('message-id'));
    for (const [mail, address] of [
      [alice[0]!, ALICE],
      [bob[0]!, BOB],
    ] as const) {
      for (const label of ['Approve', 'Approve for this run', 'Deny'] as const) {
        expect(w.runtime.links.verify(tokenOf(linkOf(mail, label))).approvedBy).toBe(address);
      }
    }

    // Opening a link (as a mail scanner does) decides nothing; submitting its page does, as the mail's recipient.
    const link = linkOf(bob[0]!, 'Approve for this run');
    expect((await fetch(link)).status).toBe(200);
    expect((await w.runtime.get(run.runId)).status).toBe('awaitingApproval');
    expect(await clickLink(link)).toMatch(/^Approved: /);
    const entry = (await w.runtime.get(run.runId)).audit.find(
      (item) => item.approvalId === run.pendingApprovals[0]!.approvalId,
    );
    expect(entry).toMatchObject({ decision: 'approved', by: BOB, scope: 'run' });
    expect(await clickLink(linkOf(alice[0]!, 'Deny'))).toContain('Already approved by bob@example.test');
  });

  it('sends a run that came from an email address back to that address only', async () => {
    const w = await world();
    await ask(w, w.notifier(), { channel: 'email', address: 'carol@example.test' });
    expect(w.smtp.received.map((mail) => mail.to)).toEqual([['carol@example.test']]);
  });

  it('keeps a hostile description out of the headers and inert in the HTML part', async () => {
    const hostile = `Ship it\r\nBcc: mallory@evil.test\r\n\r\n<img src=x onerror="alert(1)"> <a href='https://evil.test'>'quoted'</a>`;
    const w = await world({ description: hostile });
    await ask(w, w.notifier({ to: ALICE }));
    expect(w.smtp.received.map((mail) => mail.to)).toEqual([[ALICE]]);
    const [received] = w.smtp.received;
    const head = received!.raw.slice(0, received!.raw.search(/\r\n\r\n/));
    expect(head).not.toMatch(/mallory|evil/i);
    expect(received!.mail.header('bcc')).toBeUndefined();
    expect(activeInHtml(received!.mail.html!)).toEqual([]);
    expect(received!.mail.html).toContain(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &lt;a href=&#39;https://evil.test&#39;&gt;',
    );
    expect(visibleText(received!)).toContain(`<img src=x onerror="alert(1)"> <a href='https://evil.test'>'quoted'</a>`);
  });

  it('writes a subject on one line, with long names cut', () => {
    const subject = approvalSubject('deploy\r\nBcc: mallory@evil.test', `ops\u2028${'x'.repeat(200)}`);
    expect(subject).toMatch(/^Approval needed: deploy Bcc: mallory@evil\.test for ops x+…$/);
    expect(subject).not.toMatch(/[\r\n\u2028]/);
    expect(subject.length).toBeLessThan(140);
  });

  it('retries a 4xx reply, mailing again only the recipients who did not get it', async () => {
    const w = await world();
    w.smtp.faults.push(null, { code: 451, message: '4.3.0 Mailbox busy, try again in 3 seconds' });
    await ask(w);
    expect(w.smtp.inbox(ALICE)).toHaveLength(1);
    expect(w.smtp.inbox(BOB)).toHaveLength(1);
    expect(w.sleeps).toEqual([3000]);
    expect(w.errors).toEqual([]);
  });

  it('reports a 5xx reply at once, without the SMTP password', async () => {
    const w = await world({ auth: true });
    w.smtp.faults.push({ code: 554, message: `5.7.1 Rejected for countersign:${SMTP_PASSWORD}` });
    const run = await ask(w);
    expect(w.sleeps).toEqual([]);
    expect(w.errors).toHaveLength(1);
    const error = w.errors[0] as Error;
    expect(error.message).toMatch(/^The SMTP server answered 554: 5\.7\.1 Rejected for countersign:\[redacted\]/);
    expect(`${error.message} ${String(error.cause)} ${JSON.stringify(error)}`).not.toContain(SMTP_PASSWORD);
    expect((await w.runtime.get(run.runId)).status).toBe('awaitingApproval');
  });

  it('threads a follow-up under each mail when the approval is decided elsewhere and when the call finishes', async () => {
    const w = await world();
    const notifier = w.notifier({ to: ALICE });
    const run = await ask(w, notifier);
    const first = w.smtp.inbox(ALICE)[0]!.mail;
    await w.runtime.respond(run.runId, {
      approvalId: run.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'dave@example.test',
    });
    await notifier.publish(w.events.splice(0));
    await notifier.flush();
    const followUps = w.smtp
      .inbox(ALICE)
      .slice(1)
      .map((received) => received.mail);
    expect(followUps).toHaveLength(2);
    const parent = first.header('message-id')!;
    expect(parent).toMatch(/^<countersign\.[0-9a-f]{32}@127\.0\.0\.1>$/);
    for (const mail of followUps) {
      expect(mail.header('subject')).toBe('Re: Approval needed: deploy for ops');
      expect(mail.header('in-reply-to')).toBe(parent);
      expect(mail.header('references')).toBe(parent);
      expect(mail.header('message-id')).not.toBe(parent);
    }
    expect(followUps[0]!.text).toContain('Approved by dave@example.test.');
    expect(followUps[1]!.text).toContain('deploy ran: deployed web');
  });

  it('refuses options that cannot work, naming the option', async () => {
    const w = await world();
    const attempt = (overrides: Partial<EmailNotifierOptions> & Record<string, unknown>) => {
      try {
        w.notifier(overrides as Partial<EmailNotifierOptions>);
        return undefined;
      } catch (error) {
        return isCountersignError(error) ? [error.code, error.message] : error;
      }
    };
    expect(attempt({ to: 'Alice <alice@example.test>' })).toEqual([
      'invalid_config',
      'createEmailNotifier: to must be a bare address like alice@example.com.',
    ]);
    expect(attempt({ transport: { sendMail: async () => undefined } })).toEqual([
      'invalid_config',
      expect.stringContaining('either smtp'),
    ]);
    expect(attempt({ baseUrl: 'ftp://example.test' })).toEqual([
      'invalid_config',
      expect.stringContaining('baseUrl must be the public http(s) URL'),
    ]);
    expect(attempt({ smtpHost: 'x' })).toEqual(['unknown_option', expect.stringContaining('smtpHost')]);
  });
});
