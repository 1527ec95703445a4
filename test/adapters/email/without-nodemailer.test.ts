// Without nodemailer installed, `smtp` fails at the first send with a ConfigError that says how to fix it.
import { expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent, createMemoryStore, createRuntime, defineTool, type RunEvent } from 'countersign';
import { createEmailNotifier } from 'countersign/email';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

vi.mock('nodemailer', () => {
  throw new Error("Cannot find package 'nodemailer'");
});

it('reports a missing nodemailer as a missing_option ConfigError naming npm install nodemailer', async () => {
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy',
    input: z.object({}),
    needsApproval: true,
    execute: async () => 'ok',
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn([{ name: 'deploy', args: {} }]),
  );
  const runtime = createRuntime({
    agents: [createAgent({ name: 'ops', model, tools: [deploy] })],
    store: createMemoryStore(),
    links: { secret: 'email-test-link-secret-0123456789' },
  });
  const events: RunEvent[] = [];
  runtime.subscribe((event) => void events.push(event));
  const errors: unknown[] = [];
  const notifier = createEmailNotifier({
    runtime,
    baseUrl: 'https://approvals.example.test',
    from: 'approvals@example.test',
    to: 'alice@example.test',
    smtp: { host: '127.0.0.1', port: 2525 },
    onError: (error) => void errors.push(error),
  });
  await runtime.start('ops', { input: 'go' });
  await notifier.publish(events);
  await notifier.flush();
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({
    code: 'missing_option',
    message: expect.stringContaining('npm install nodemailer'),
  });
});
