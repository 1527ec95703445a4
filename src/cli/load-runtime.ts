import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Runtime } from '../runtime/runtime.js';

const TYPESCRIPT = /\.[cm]?tsx?$/;

/** How to load a TypeScript runtime module when this Node cannot and tsx is not installed where the CLI runs. */
function howToLoad(path: string): string {
  return (
    `${path} is TypeScript and this Node cannot import it. Install tsx in this project (npm install --save-dev tsx) and ` +
    `countersign registers it, or run the CLI through it: node --import tsx ./node_modules/countersign/dist/cli/index.js ... ` +
    `(or npx tsx ./node_modules/.bin/countersign ...), or compile the module to JavaScript and pass the .js file`
  );
}

type Exports = Record<string, { import?: string | { default?: string } } | undefined>;

/** tsx's `register` (its ESM `tsx/esm/api`), resolved from the project in `cwd`, or undefined when it is not installed there. */
async function tsxRegister(cwd: string): Promise<(() => unknown) | undefined> {
  let manifest: string;
  try {
    manifest = createRequire(join(cwd, 'package.json')).resolve('tsx/package.json');
  } catch {
    return undefined;
  }
  // The ESM build: tsx's CommonJS build of the API does not find its loader when imported.
  const entry = (JSON.parse(await readFile(manifest, 'utf8')) as { exports?: Exports }).exports?.['./esm/api']?.import;
  const file = typeof entry === 'string' ? entry : entry?.default;
  if (file === undefined) return undefined;
  const api = (await import(pathToFileURL(join(dirname(manifest), file)).href)) as { register?: () => unknown };
  return api.register;
}

/** Imports `path`; a TypeScript module this Node cannot import is retried once tsx is registered from `cwd`. */
async function importModule(path: string, cwd: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(cwd, path)).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!TYPESCRIPT.test(path) || (error as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
  const register = await tsxRegister(cwd);
  if (register === undefined) throw new Error(howToLoad(path));
  register();
  // A new URL: Node remembers the failed import of the first one.
  return (await import(`${url}#tsx`)) as Record<string, unknown>;
}

/**
 * Imports the user's runtime module (`--runtime PATH`, relative to `cwd`): `export const runtime = ...` or a default
 * export (a Runtime or a function returning one). A `.ts` module loads where Node can import TypeScript, or through
 * tsx when the project has it; otherwise the error says how to load it.
 */
export async function loadRuntime(path: string, cwd = process.cwd()): Promise<Runtime> {
  const module = await importModule(path, cwd);
  let candidate = module['runtime'] ?? module['default'];
  if (typeof candidate === 'function') candidate = await (candidate as () => unknown)();
  if (typeof (candidate as Runtime | undefined)?.respond !== 'function') {
    throw new Error(
      `${path} does not export a runtime; export one as \`runtime\` or default (createRuntime({ agents, store }))`,
    );
  }
  return candidate as Runtime;
}
