import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: [
      { find: /^countersign$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      { find: /^countersign\/(.*)$/, replacement: fileURLToPath(new URL('./src/$1/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/no-console.ts'],
    globalSetup: ['test/setup/redis-global.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CI reads the counts from vitest's own JSON report.
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.ci/report.json' }]] : ['default'],
  },
});
