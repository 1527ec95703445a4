import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The projects. `process`: the suites that spawn processes (MCP servers, the CLI, examples, Redis servers), drive a
// browser or a terminal, or install the package; most of their time is spent waiting on those. `unit`: the rest, for
// the inner loop (`npm run test:fast`), with the files of a worker sharing one module graph (isolate: false): loading
// the sources again for every file was more than half of the CPU the whole run took. `unit-isolated`: the unit suites
// that test what happens once per process. `npm test` runs them all at once.
const processSuites = [
  'test/package/**/*.test.ts',
  'test/examples/**/*.test.ts',
  'test/adapters/mcp/**/*.test.ts',
  'test/cli/{gateway-decisions,load-runtime,mcp-gateway,review-terminal}.test.ts',
  'test/core/cross-process.test.ts',
  'test/http/{console-browser,insights-browser,link-page-browser,readme-curl,serverless}.test.ts',
  'test/redis/{claude-code-cli,claude-code-hook,cross-process-cancel,mcp-gateway,mcp-gateway-restart,redis-cluster,redis-durability,redis-restart,runtime-crash,worker}.test.ts',
  'test/quickstart.test.ts',
  'test/docs/docs-citations.test.ts',
];

// Unit suites that need a fresh process of their own: they test once-per-process behaviour.
const isolatedSuites = ['test/redis/unsigned-agents-warning.test.ts'];

// Started first, longest first, so that on a fresh clone (no timings cached yet) they overlap the rest of the run
// instead of starting at its end.
const longest = [
  'test/package/fresh-clone.test.ts',
  'test/http/console-browser.test.ts',
  'test/examples/chat-browser.test.ts',
  'test/redis/runtime-crash.test.ts',
  'test/package/commonjs.test.ts',
  'test/redis/mcp-gateway-restart.test.ts',
  'test/package/optional-peers.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = longest.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return index === -1 ? longest.length : index;
    };
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

// Tests import the package by its public names; these point them at the sources.
const alias = Object.entries(
  JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')).compilerOptions.paths as Record<
    string,
    [string]
  >,
).map(([name, [path]]) => ({
  find: new RegExp(`^${name}$`),
  replacement: fileURLToPath(new URL(path, import.meta.url)),
}));

const shared = {
  setupFiles: ['test/setup/no-console.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // createRuntime warns (once per process) of agents without decisionSecret on Redis, which many suites make on
  // purpose; Node prints warnings through console.error, which fails a test. Its own suite spies on emitWarning.
  execArgv: ['--disable-warning=COUNTERSIGN_NO_DECISION_SECRET'],
} satisfies NonNullable<ViteUserConfig['test']>;

export default defineConfig({
  test: {
    // Once for the whole run, whichever projects run: a Redis (test/setup/redis-global.ts) and the folder the process
    // suites' scripts are transpiled to (test/setup/build-global.ts).
    globalSetup: ['test/setup/redis-global.ts', 'test/setup/build-global.ts'],
    pool: 'forks',
    // Vitest's default is one worker less than the CPUs: a single worker on a 2-core machine, so a suite waiting on
    // its child processes held up the whole run. The process suites mostly wait, so one worker more than the CPUs.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongestFirst },
    // CI reads the counts from vitest's own JSON report.
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.ci/report.json' }]] : ['default'],
    projects: [
      {
        resolve: { alias },
        test: { ...shared, name: 'process', include: processSuites },
      },
      {
        resolve: { alias },
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...processSuites, ...isolatedSuites],
          isolate: false,
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
        },
      },
      {
        resolve: { alias },
        test: { ...shared, name: 'unit-isolated', include: isolatedSuites },
      },
    ],
  },
});
