import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests import the package by its public names; these point them at the sources.
    alias: Object.entries(JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')).compilerOptions.paths as Record<string, [string]>).map(
      ([name, [path]]) => ({ find: new RegExp(`^${name}$`), replacement: fileURLToPath(new URL(path, import.meta.url)) }),
    ),
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/no-console.ts'],
    globalSetup: ['test/setup/redis-global.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // createRuntime warns (once per process) of agents without decisionSecret on Redis, which many suites make on
    // purpose; Node prints warnings through console.error, which fails a test. Its own suite spies on emitWarning.
    execArgv: ['--disable-warning=COUNTERSIGN_NO_DECISION_SECRET'],
    // CI reads the counts from vitest's own JSON report.
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.ci/report.json' }]] : ['default'],
  },
});
