// The official MCP conformance suite (@modelcontextprotocol/conformance, from the devDependencies) against the
// gateway's server side over real loopback HTTP, in front of the fixture server with every call allowed. The
// scenarios the gateway itself answers must pass; the others test features the gateway does not offer (it gates tools
// only) or tools its upstream does not have, and docs/mcp.md lists each with why.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from 'countersign/http';
import { closeGateways, gatewayWithClient } from '../../support/mcp-gateway-kit.js';

const suite = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
// The suite imports fs.globSync (Node 22) at load, for commands the server run never uses: this hook gives it a stub.
const node20 = fileURLToPath(new URL('../../support/conformance/register.mjs', import.meta.url));
const token = 'conformance-token-0123456789';

/** Scenarios about what the gateway itself answers: the handshake, ping, the tool list, streams, Host and Origin checks. */
const GATEWAY_ANSWERS = [
  'server-initialize',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];
/**
 * Scenarios that need what the gateway does not offer: logging, completion, resources and prompts (it gates tools
 * only), and the suite's own test tools (test_simple_text, ...), which the upstream here does not have.
 */
const NOT_OFFERED = [
  'logging-set-level',
  'completion-complete',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await closeGateways();
});

/** Runs the suite's server scenarios against `url`; its printed report. */
function runSuite(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', node20, suite, 'server', '--url', url], {
      cwd: mkdtempSync(join(tmpdir(), 'countersign-conformance-')),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', () => resolve(output));
  });
}

describe('the MCP conformance suite against the gateway', () => {
  it('passes every scenario the gateway itself answers; the others need features or tools it does not offer', async () => {
    const { gateway } = await gatewayWithClient({ clientTokens: { conformance: token }, policy: { default: 'allow' } });
    // The suite's client sends no credentials: this front door adds the client's token, as a proxy would.
    const server = await serve(
      {
        fetch: (request: Request) => {
          const headers = new Headers(request.headers);
          headers.set('authorization', `Bearer ${token}`);
          return gateway.fetch(new Request(request, { headers }));
        },
      },
      { port: 0 },
    );
    closing.push(() => server.close());
    const report = await runSuite(`${server.url}/mcp`);
    const outcomes = Object.fromEntries(
      [...report.matchAll(/^([✓✗]) ([a-z0-9-]+): (\d+) passed, (\d+) failed$/gm)].map(([, , name, , failed]) => [
        name,
        failed === '0' ? 'pass' : 'fail',
      ]),
    );
    // The table in docs/mcp.md, scenario by scenario: a change here is a change there.
    expect(outcomes).toEqual({
      ...Object.fromEntries(GATEWAY_ANSWERS.map((name) => [name, 'pass'])),
      ...Object.fromEntries(NOT_OFFERED.map((name) => [name, 'fail'])),
    });
  }, 240_000);
});
