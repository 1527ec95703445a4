// The rooms of src/ keep their shape by lint: Biome (biome.json) refuses an adapter that reaches into the core or into
// another adapter, a core room that imports an adapter (noRestrictedImports per folder), and any import cycle, of
// values or of types (noImportCycles). This suite lays small probe files out under the paths where they would live,
// in a temporary copy of the tree's lint setup (nothing is written into src/), runs Biome over them once, and checks
// the rules hold both ways: what must be refused is, and what is allowed passes.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const checkout = new URL('../..', import.meta.url).pathname;
const importing = (specifier: string) => `import { x } from '${specifier}';\nexport const y = x;\n`;

const refused = [
  ['a channel reaching into the loop', 'src/channels/slack/probe.ts', '../../loop/step.js'],
  ['a model adapter reaching a kit file past the kit entry', 'src/models/openai/probe.ts', '../../kit/web/problem.js'],
  ['the HTTP app reaching into the MCP gateway', 'src/http/probe.ts', '../mcp/gateway-agent.js'],
  ['the Redis store reaching into the memory stores', 'src/stores/redis/probe.ts', '../memory/memory-grant-store.js'],
  ['the loop importing the HTTP app', 'src/loop/probe.ts', '../http/serve.js'],
  ['policy importing a channel', 'src/policy/probe.ts', '../channels/slack/index.js'],
  ['the kit importing the Redis store', 'src/kit/probe.ts', '../stores/redis/index.js'],
  [
    'the Claude Agent SDK adapter reaching into the requests',
    'src/claude-code/probe.ts',
    '../requests/request-handle.js',
  ],
  ['the runtime importing the Claude Agent SDK adapter', 'src/runtime/probe-claude.ts', '../claude-code/index.js'],
  ['the MCP gateway reaching into the request agent', 'src/mcp/probe.ts', '../requests/one-call-model.js'],
  ['the request agent importing the HTTP app', 'src/requests/probe.ts', '../http/index.js'],
  ['the runtime importing the OpenTelemetry adapter', 'src/runtime/probe-otel.ts', '../otel/index.js'],
  ['the OpenTelemetry adapter reaching into the ledger', 'src/otel/probe.ts', '../runtime/ledger.js'],
  ['the chat bindings reaching into the runtime', 'src/ui/probe.ts', '../runtime/respond.js'],
  ['the chat bindings reaching into the HTTP app', 'src/ui/http-probe.ts', '../http/events-route.js'],
  ['the runtime importing the chat bindings', 'src/runtime/probe-ui.ts', '../ui/index.js'],
] as const;

const allowed = [
  ['a channel using the public entry', 'src/channels/telegram/probe.ts', '../../index.js'],
  ['a channel using the kit', 'src/channels/discord/probe.ts', '../../kit/index.js'],
  ['a channel using the channels core', 'src/channels/email/probe.ts', '../channel-options.js'],
  ['the HTTP app using its own files', 'src/http/routes/probe.ts', '../link-pages.js'],
  ['the runtime using the memory stores', 'src/runtime/probe.ts', '../stores/memory/memory-store.js'],
  ['the Claude Agent SDK adapter using the kit', 'src/claude-code/kit-probe.ts', '../kit/index.js'],
  ['the OpenTelemetry adapter using the public entry', 'src/otel/index-probe.ts', '../index.js'],
  ['the chat bindings using the kit', 'src/ui/kit-probe.ts', '../kit/index.js'],
] as const;

let tree: string;
let broken: Map<string, string[]>;

beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), 'countersign-rooms-'));
  copyFileSync(join(checkout, 'biome.json'), join(tree, 'biome.json'));
  const files: Record<string, string> = Object.fromEntries(
    [...refused, ...allowed].map(([, path, specifier]) => [path, importing(specifier)]),
  );
  // Two files of one room that import each other, one of them for a type only: still a cycle.
  files['src/run/cycle-a.ts'] = "import type { B } from './cycle-b.js';\nexport type A = { readonly b?: B };\n";
  files['src/run/cycle-b.ts'] = "import type { A } from './cycle-a.js';\nexport type B = { readonly a?: A };\n";
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), source);
  }
  const run = spawnSync(
    join(checkout, 'node_modules/.bin/biome'),
    ['lint', '--reporter=json', '--max-diagnostics=none', 'src'],
    { cwd: tree, encoding: 'utf8' },
  );
  const report = JSON.parse(run.stdout) as { diagnostics: { category: string; location: { path: string } }[] };
  broken = new Map();
  for (const diagnostic of report.diagnostics) {
    const rule = diagnostic.category.split('/').at(-1)!;
    broken.set(diagnostic.location.path, [...(broken.get(diagnostic.location.path) ?? []), rule]);
  }
});

afterAll(() => rmSync(tree, { recursive: true, force: true }));

describe('the rooms of src/, as Biome keeps them', () => {
  it.each(refused)('refuses %s', (_, path) => {
    expect(broken.get(path)).toContain('noRestrictedImports');
  });

  it.each(allowed)('allows %s', (_, path) => {
    expect(broken.get(path) ?? []).not.toContain('noRestrictedImports');
  });

  it('refuses an import cycle, even one of types only', () => {
    expect(broken.get('src/run/cycle-a.ts')).toContain('noImportCycles');
  });
});
