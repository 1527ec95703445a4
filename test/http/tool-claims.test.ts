// What the approval app shows of a tool's claims about itself (annotations) and of its connector: the link page and
// the inbox show them, and GET /connectors lists the connectors with their status now; and of a sub-agent's request,
// the chain of agents down to it (none on a run's own call); over a real loopback server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentAsTool,
  type ConnectorStatus,
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
} from 'countersign';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { inboxLinkUrl, linkUrls } from '../support/link-urls.js';

const TOKEN = 'tool-claims-test-token-0123456789';
const CLAIMS =
  'The tool says: <strong>Drop &lt;table&gt;</strong> · <strong>⚠️ destructive</strong> · idempotent (its own hints, not verified)';
const DOWN =
  /<p class="warn"><strong>⚠️ Connector warehouse is disconnected: an approved call waits for it to come back, and fails if it does not\.<\/strong><\/p>/;

describe("a tool's claims and its connector on the approval app", () => {
  let status: ConnectorStatus = 'disconnected';
  const dropTable = defineTool({
    name: 'drop_table',
    description: 'Drop a table',
    input: z.object({ table: z.string() }),
    needsApproval: true,
    annotations: { title: 'Drop <table>', destructiveHint: true, idempotentHint: true },
    connector: 'warehouse',
    connectorStatus: () => status,
    execute: () => 'dropped',
  });
  const runtime = createRuntime({
    agents: [
      createAgent({
        name: 'dba',
        tools: [dropTable],
        model: createScriptedModel(({ messages }) =>
          messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('drop_table', { table: 'orders' }),
        ),
      }),
    ],
    store: createMemoryStore(),
    links: { secret: 'tool-claims-link-secret-0123456789' },
  });
  let server: ServeHandle;

  beforeAll(async () => {
    server = await serve(createApprovalApp(runtime, { bearerToken: TOKEN }), { port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('the link page and the inbox show the title and badges as the tool’s own claims, destructive in a warning box, and the disconnected connector as a warning', async () => {
    const paused = await runtime.start('dba', { input: 'clean up' });
    const links = await linkUrls(runtime, paused.runId, paused.pendingApprovals[0]!.approvalId, {}, server.url);
    const inbox = await inboxLinkUrl(runtime, 'alice@example.com', {}, server.url);
    for (const url of [links.approve, inbox.url]) {
      const html = await (await fetch(url)).text();
      expect(html).toContain(`<p class="warn">🏷️ ${CLAIMS}</p>`);
      expect(html).toMatch(DOWN);
      expect(html).not.toContain('(arguments): Connector');
      expect(html).not.toContain('class="delegation"');
    }
  });

  it('GET /connectors lists each connector with its status now, to a caller with the bearer token only', async () => {
    const url = `${server.url}/connectors`;
    expect((await fetch(url)).status).toBe(401);
    const read = async () => (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
    expect(await read()).toEqual({ connectors: [{ name: 'warehouse', status: 'disconnected', agents: ['dba'] }] });
    status = 'connected';
    expect(await read()).toEqual({ connectors: [{ name: 'warehouse', status: 'connected', agents: ['dba'] }] });
  });
});

describe("a sub-agent's request on the approval app", () => {
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a release',
    input: z.object({ version: z.string() }),
    needsApproval: true,
    execute: ({ version }) => `deployed ${version}`,
  });
  const deployer = createAgent({
    name: 'deployer',
    model: createScriptedModel([toolCallTurn('deploy', { version: '1.4' }), textTurn('shipped')]),
    tools: [deploy],
  });
  const lead = createAgent({
    name: 'lead',
    model: createScriptedModel([toolCallTurn('deployer', { task: 'ship 1.4' }), textTurn('done')]),
    tools: [agentAsTool(deployer)],
  });
  const runtime = createRuntime({
    agents: [lead],
    store: createMemoryStore(),
    links: { secret: 'sub-agent-link-secret-0123456789' },
  });
  let server: ServeHandle;

  beforeAll(async () => {
    server = await serve(createApprovalApp(runtime, { bearerToken: TOKEN }), { port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('the link page and the inbox show the inner call with the chain of agents from the run’s down to the sub-agent', async () => {
    const paused = await runtime.start('lead', { input: 'ship' });
    const request = paused.pendingApprovals[0]!;
    const links = await linkUrls(runtime, paused.runId, request.approvalId, {}, server.url);
    const inbox = await inboxLinkUrl(runtime, 'alice@example.com', {}, server.url);
    for (const url of [links.approve, inbox.url]) {
      const html = await (await fetch(url)).text();
      expect(html).toContain('<code>deploy</code>');
      expect(html).toContain(
        `<p class="delegation">↳ Asked by sub-agent <strong>deployer</strong>: <strong>lead</strong> › <strong>deployer</strong> (via delegate call deployer <code>${request.path![0]!.toolCallId}</code>). You decide its call <code>deploy</code> itself.</p>`,
      );
    }
  });
});
