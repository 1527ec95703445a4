// `countersign verify-audit` as an auditor runs it: the audit exported over the app's HTTP API, the keys fetched
// from its /.well-known/jwks.json over a real socket (or read from a file), and each kind of tampering refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createApprovalApp, serve, type RunView } from 'countersign/http';
import { countingAgent } from '../support/runtime-harness.js';
import { runCliCaptured } from '../support/cli-run.js';
import { ed25519, receiptWorld, tampered, type ReceiptWorld } from './receipt-world.js';

const TOKEN = 'verify-audit-token-0123456789abcdef';
let world: ReceiptWorld;
let server: Awaited<ReturnType<typeof serve>>;
let dir: string;

beforeAll(async () => {
  world = await receiptWorld(ed25519().privateKey);
  server = await serve(createApprovalApp(world.runtime, { bearerToken: TOKEN }), { port: 0 });
  dir = mkdtempSync(join(tmpdir(), 'countersign-verify-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

async function exported(runId: string): Promise<RunView> {
  const res = await fetch(`${server.url}/runs/${runId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as RunView;
}

describe('GET /.well-known/jwks.json', () => {
  it('publishes the receipt keys to anyone, without credentials', async () => {
    const res = await fetch(`${server.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await res.json()).toEqual(world.keys);
  });

  it('is a 404 problem naming the option on a runtime without receipts', async () => {
    const app = createApprovalApp(createRuntime({ agents: [countingAgent().agent] }), { bearerToken: TOKEN });
    const res = await app.request('/.well-known/jwks.json');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found', detail: expect.stringContaining('receipts') });
  });
});

describe('countersign verify-audit', () => {
  it('passes an audit exported over HTTP, with the keys from the URL or from a file', async () => {
    const audit = file('audit.json', [await exported(world.singles.runId), await exported(world.quorum.runId)]);
    const byUrl = await runCliCaptured(['verify-audit', audit, '--jwks', `${server.url}/.well-known/jwks.json`]);
    expect(byUrl).toEqual({ code: 0, out: 'ok: 4 entries of 2 run(s) verified\n', err: '' });
    const byFile = await runCliCaptured(['verify-audit', audit, '--jwks', file('jwks.json', world.keys), '--json']);
    expect(byFile.code).toBe(0);
    expect(JSON.parse(byFile.out)).toEqual({ ok: true, runs: 2, entries: 4, problems: [] });
  });

  it.each([
    [
      'an entry changed',
      (view: RunView) => tampered(view, (a) => a.map((e, i) => (i === 1 ? { ...e, reason: 'ok' } : e))),
      '#1 bad_signature',
    ],
    ['an entry removed', (view: RunView) => tampered(view, (a) => a.filter((_, i) => i !== 1)), '#1 broken_chain'],
    ['entries reordered', (view: RunView) => tampered(view, ([a, b, c]) => [a!, c!, b!]), '#1 broken_chain'],
  ])('fails (exit 1) on %s, naming the entry', async (_, edit, line) => {
    const audit = file('tampered.json', edit(await exported(world.singles.runId)));
    const result = await runCliCaptured(['verify-audit', audit, '--jwks', `${server.url}/.well-known/jwks.json`]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`${world.singles.runId} ${line}`);
    expect(result.out).toMatch(/^FAILED: \d+ problem\(s\) in \d+ entries of 1 run\(s\)$/m);
  });

  it('fails (exit 1) on a vote copied', async () => {
    const view = await exported(world.quorum.runId);
    const copied = tampered(view, ([e]) => [{ ...e!, votes: [e!.votes![0]!, e!.votes![0]!] }]);
    const result = await runCliCaptured([
      'verify-audit',
      file('votes.json', copied),
      '--jwks',
      file('k.json', world.keys),
    ]);
    expect(result.code).toBe(1);
    expect(result.out).toContain('#0 duplicate_vote: ana has two votes in one decision');
  });

  it('says what is wrong with its input: usage (exit 2), unreadable or foreign files and key sets (exit 1)', async () => {
    expect((await runCliCaptured(['verify-audit', 'a.json'])).code).toBe(2);
    const missing = await runCliCaptured([
      'verify-audit',
      join(dir, 'none.json'),
      '--jwks',
      file('k2.json', world.keys),
    ]);
    expect(missing).toMatchObject({ code: 1, err: expect.stringContaining('cannot read the audit') });
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'not json');
    expect((await runCliCaptured(['verify-audit', notJson, '--jwks', file('k3.json', world.keys)])).err).toContain(
      'the audit is not JSON',
    );
    const gone = await runCliCaptured(['verify-audit', file('a2.json', world.singles), '--jwks', `${server.url}/nope`]);
    expect(gone).toMatchObject({ code: 1, err: expect.stringContaining('answered 404') });
  });
});
