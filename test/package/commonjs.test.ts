import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The package is ESM; its exports use the "default" condition, so Node's require(esm) (Node 20.19 and later, 22.12
// and later) loads it from CommonJS, and older Node says it is an ES module (ERR_REQUIRE_ESM).
describe("require('countersign') from CommonJS", () => {
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'countersign-cjs-'));
    const installed = join(project, 'node_modules', 'countersign');
    mkdirSync(installed, { recursive: true });
    // What the tarball holds: package.json and the build (tsc into the temp folder, so the worktree's dist/ is not read;
    // emit only, as `npm run typecheck` checks the types).
    cpSync('package.json', join(installed, 'package.json'));
    execFileSync(process.execPath, [
      resolve('node_modules/typescript/bin/tsc'),
      '-p',
      'tsconfig.build.json',
      '--outDir',
      join(installed, 'dist'),
      '--sourceMap',
      'false',
      '--declaration',
      'false',
      '--noCheck',
    ]);
    symlinkSync(resolve('node_modules'), join(installed, 'node_modules'), 'dir');
    writeFileSync(
      join(project, 'main.cjs'),
      "const { createAgent, defineTool } = require('countersign');\nconst { createScriptedModel } = require('countersign/testing');\n" +
        'console.log(typeof createAgent, typeof defineTool, typeof createScriptedModel);\n',
    );
  }, 300_000);
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('loads the package and its subpaths where Node can require ES modules, else says the package is ESM', () => {
    const run = () =>
      execFileSync(process.execPath, ['main.cjs'], {
        cwd: project,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    if ((process.features as { require_module?: boolean }).require_module) {
      expect(run()).toBe('function function function\n');
    } else {
      expect(run).toThrow(/ERR_REQUIRE_ESM|require\(\) of ES Module/);
    }
  });
});
