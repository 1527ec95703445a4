import { readFile } from 'node:fs/promises';
import { HttpProblem, problem } from '../../kit/index.js';
import { CONSOLE_CSS } from './console-style.js';

/** Where the console's browser modules are: `dist/console/*.js` when built, `src/console/*.ts` when run from source. */
const ASSET_DIR = new URL('../../console/', import.meta.url);

const cache = new Map<string, string>();

/**
 * Source of the TypeScript transpiler, named through a variable so bundlers of the built package do not follow it:
 * it is only reached when running from source (tests, `tsx`), where `typescript` is a dev dependency.
 */
const TYPESCRIPT = 'typescript';

/**
 * The text of a console asset (`main.js`, `console.css`, ...): the built module, or, running from source, the
 * module transpiled from its `.ts` the first time it is asked for. Unknown names are a 404.
 *
 * @example
 * const script = await consoleAsset('main.js');
 */
export async function consoleAsset(name: string): Promise<{ readonly type: string; readonly text: string }> {
  if (name === 'console.css') return { type: 'text/css; charset=utf-8', text: CONSOLE_CSS };
  if (!/^[a-z][a-z-]{0,40}\.js$/.test(name))
    throw new HttpProblem(problem(404, 'not_found', `No console asset ${name}.`));
  const cached = cache.get(name);
  if (cached !== undefined) return { type: 'text/javascript; charset=utf-8', text: cached };
  let text: string;
  try {
    text = await readFile(new URL(name, ASSET_DIR), 'utf8');
  } catch {
    let source: string;
    try {
      source = await readFile(new URL(name.replace(/\.js$/, '.ts'), ASSET_DIR), 'utf8');
    } catch {
      throw new HttpProblem(problem(404, 'not_found', `No console asset ${name}.`));
    }
    const ts = (await import(TYPESCRIPT)) as typeof import('typescript');
    text = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
    }).outputText;
  }
  cache.set(name, text);
  return { type: 'text/javascript; charset=utf-8', text };
}
