// Names this run's folder for the transpiled sources (test/support/built.ts builds it the first time a process test
// asks for it) and removes it after the run. It is inside the checkout, so bare imports resolve to its node_modules
// and its package.json makes the files ESM, and it is one folder per run, so runs in parallel never share one.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's transpiled `src/**` and `test/fixtures/*` go (see test/support/built.ts). */
    builtDir: string;
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, '.test-build', `${process.pid}-${Date.now().toString(36)}`);

export function setup(project: TestProject): void {
  project.provide('builtDir', out);
}

export function teardown(): void {
  rmSync(out, { recursive: true, force: true });
  rmSync(`${out}.lock`, { recursive: true, force: true });
  // The parent folder goes once no other run uses it.
  try {
    rmSync(join(root, '.test-build'));
  } catch {
    // Another run's folder is still there.
  }
}
