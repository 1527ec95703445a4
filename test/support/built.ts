// The scripts the process tests spawn, as JavaScript: `node <built>/src/cli/index.js` instead of
// `node --import tsx src/cli/index.ts`, which loads tsx and transforms the same files again in every child (about
// half a second of CPU each, over a hundred times a run). The first test file of a run that asks builds the folder
// test/setup/build-global.ts named, once for the run (other workers wait for it): the sources transpiled as tsc emits them with
// isolatedModules (the typecheck is `npm run typecheck`'s job).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const folders = ['src', 'test/fixtures'];

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

async function build(out: string): Promise<void> {
  const { default: ts } = await import('typescript');
  const compilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true };
  // Written beside the final folder and renamed into place: a worker sees the whole build or none of it.
  const staging = `${out}.${process.pid}.tmp`;
  for (const file of folders.flatMap((folder) => typescriptFiles(join(root, folder)))) {
    const target = join(staging, relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(
      target,
      ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file }).outputText,
    );
  }
  renameSync(staging, out);
}

/** Builds `out` unless another worker is at it, in which case it waits until that build is in place. */
async function ensureBuilt(out: string): Promise<void> {
  mkdirSync(dirname(out), { recursive: true });
  try {
    mkdirSync(`${out}.lock`);
  } catch {
    // Taken: another worker builds. A deadlock guard, not a speed assertion.
    for (const deadline = Date.now() + 120_000; !existsSync(out); ) {
      if (Date.now() > deadline) throw new Error(`Waited two minutes for another worker to build ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return;
  }
  await build(out);
}

let building: Promise<void> | undefined;

/**
 * The path of the JavaScript this run built from `file` (relative to the checkout, e.g. `src/cli/index.ts`), to run
 * with a plain `node`.
 *
 * @example
 * const cli = await builtScript('src/cli/index.ts');
 * spawn(process.execPath, [cli, 'mcp-gateway', '--port', '0']);
 */
export async function builtScript(file: string): Promise<string> {
  const out = inject('builtDir');
  if (!existsSync(out)) {
    building ??= ensureBuilt(out);
    await building;
  }
  return join(out, file.replace(/\.ts$/, '.js'));
}

/** A shell command line that runs `file` with a plain `node`, for options such as `--upstream`. */
export async function builtCommand(file: string): Promise<string> {
  return `"${process.execPath}" "${await builtScript(file)}"`;
}
