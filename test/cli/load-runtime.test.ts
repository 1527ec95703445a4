// A runtime module written in TypeScript, given to the CLI on a Node that cannot import TypeScript (Node 20 without
// tsx preloaded): the real loader, compiled to JavaScript and run by a plain `node`, registers tsx when the project
// has it, and otherwise fails with an error that says how to load the module.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('countersign --runtime with a TypeScript module', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-ts-runtime-'));
  const module = join(dir, 'runtime.ts');
  beforeAll(() => {
    const source = readFileSync(join(root, 'src/cli/load-runtime.ts'), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    writeFileSync(join(dir, 'load-runtime.mjs'), outputText);
    writeFileSync(
      join(dir, 'load.mjs'),
      `import { loadRuntime } from './load-runtime.mjs';
try {
  const runtime = await loadRuntime(process.argv[2], process.argv[3]);
  console.log('loaded ' + runtime.respond());
} catch (error) {
  console.log('error: ' + error.message);
}
`,
    );
    // The module of an ESM project (countersign is ESM), with type annotations: a plain Node refuses the file.
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    writeFileSync(
      module,
      `const respond = (): string => 'from TypeScript';\nexport const runtime: { respond(): string } = { respond };\n`,
    );
  });
  const load = async (cwd: string) =>
    (await run(process.execPath, [join(dir, 'load.mjs'), module, cwd], { cwd })).stdout.trim();

  it('loads through tsx when the project (the working directory) has it installed', async () => {
    expect(await load(root)).toBe('loaded from TypeScript');
  });

  it('says exactly how to load it when tsx is not installed', async () => {
    const output = await load(dir);
    expect(output).toContain(`error: ${module} is TypeScript and this Node cannot import it.`);
    expect(output).toContain('npm install --save-dev tsx');
    expect(output).toContain('node --import tsx ./node_modules/countersign/dist/cli/index.js');
    expect(output).toContain('compile the module to JavaScript');
  });
});
