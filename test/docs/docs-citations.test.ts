// The manual's promises, checked: every test file README.md and docs/**/*.md cite exists, every test name they
// quote is in that file, and every ```ts block typechecks against the package's types. The conventions are written
// at the top of docs/guarantees.md.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md') && !file.startsWith('.vitepress'))
    .map((file) => `docs/${file.split('\\').join('/')}`)
    .sort(),
];
const testFiles = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' }).map(
  (file) => `test/${file.split('\\').join('/')}`,
);

interface Block {
  readonly page: string;
  /** The line of the opening fence, from 1. */
  readonly line: number;
  readonly info: string;
  readonly code: string;
}

/** A page's fenced blocks, and its prose with the blocks blanked out (line numbers kept). */
function parse(page: string): { blocks: Block[]; prose: string } {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const blocks: Block[] = [];
  const prose: string[] = [];
  for (let at = 0; at < lines.length; at++) {
    const fence = /^```(.*)$/.exec(lines[at]!);
    if (!fence) {
      prose.push(lines[at]!);
      continue;
    }
    const end = lines.findIndex((line, index) => index > at && line.startsWith('```'));
    if (end === -1) throw new Error(`${page}:${at + 1}: a code block that never closes`);
    blocks.push({ page, line: at + 1, info: fence[1]!.trim(), code: lines.slice(at + 1, end).join('\n') });
    for (let index = at; index <= end; index++) prose.push('');
    at = end;
  }
  return { blocks, prose: prose.join('\n') };
}

const parsed = pages.map((page) => ({ page, ...parse(page) }));

/** A path with `*` as a pattern over the files under test/: `*` is any run of characters but `/`. */
function matches(path: string): string[] {
  if (!path.includes('*')) return existsSync(join(root, path)) ? [path] : [];
  const pattern = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  return testFiles.filter((file) => pattern.test(file));
}

/** The source with string escapes undone, so a name quoted in the docs matches however the test spells its quotes. */
const sourceText = (file: string) => readFileSync(join(root, file), 'utf8').replace(/\\(['"`])/g, '$1');

/** Whether `name` (which may be cut with `…`) is in `source`: each piece between the cuts, in order. */
function hasName(source: string, name: string): boolean {
  let from = 0;
  // Spaces around a cut belong to it: "…character …" stands for "…character, and …".
  for (const piece of name.split('…').map((text) => text.trim())) {
    if (piece === '') continue;
    const at = source.indexOf(piece, from);
    if (at === -1) return false;
    from = at + piece.length;
  }
  return true;
}

describe('the README', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');

  it('is a landing page of at most 250 lines; the manual is docs/', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('links each subpath of the package to its page in docs/, and the page exists', () => {
    const exports = Object.keys(
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports,
    );
    const subpaths = exports
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'countersign' : `countersign/${key.slice(2)}`));
    for (const subpath of subpaths) {
      const link = new RegExp(`\\[\`${subpath}\`\\]\\((docs/[^)#]+)\\)`).exec(readme);
      expect(link, `README.md links \`${subpath}\` to its page`).not.toBeNull();
      expect(existsSync(join(root, link![1]!)), link![1]).toBe(true);
    }
  });
});

describe('what the manual cites', () => {
  // Any path under test/ in prose, in a code span or not.
  const paths = parsed.flatMap(({ page, prose }) =>
    [...prose.matchAll(/(?<![\w./-])test\/[\w./*-]*[\w*/]/g)].map((match) => ({
      page,
      path: match[0]!.replace(/[.]+$/, ''),
    })),
  );
  // `test/…` ("name", "name").
  const names = parsed.flatMap(({ page, prose }) =>
    [...prose.matchAll(/`(test\/[^`\s]+)`\s*\(((?:"[^"]*"(?:,\s*)?)+)\)/g)].flatMap((match) =>
      [...match[2]!.matchAll(/"([^"]*)"/g)].map((name) => ({ page, path: match[1]!, name: name[1]! })),
    ),
  );

  it('finds the citations it checks', () => {
    expect(paths.length).toBeGreaterThan(150);
    expect(names.length).toBeGreaterThan(60);
    const citing = new Set(names.map(({ page }) => page));
    expect(citing.has('docs/guarantees.md') && citing.has('docs/threat-model.md')).toBe(true);
  });

  it('every cited test file exists', () => {
    const missing = paths.filter(({ path }) => matches(path).length === 0).map(({ page, path }) => `${page}: ${path}`);
    expect(missing).toEqual([]);
  });

  it('every quoted test name is in the file it is cited with', () => {
    const missing = names
      .filter(({ path, name }) => {
        const files = matches(path);
        return files.length === 0 || !files.every((file) => hasName(sourceText(file), name));
      })
      .map(({ page, path, name }) => `${page}: ${path} ("${name}")`);
    expect(missing).toEqual([]);
  });
});

// The names the manual's fragments use without declaring them: the values a reader's app already has. Anything of
// countersign's a block uses it imports itself; a block that declares one of these names itself shadows it.
const context = `import type { Agent, AgentSnapshot, AnyTool, LinkedRuntime, Model, SnapshotStore } from 'countersign';
import type { Redis } from 'ioredis';

declare global {
  const model: Model;
  const tools: AnyTool[];
  const agent: Agent;
  const agents: Agent[];
  const runtime: LinkedRuntime;
  const store: SnapshotStore;
  const redis: Redis;
  const paused: AgentSnapshot;
  const approvalId: string;
  const decisionSecret: string;
  const bearerToken: string;
  const webhookSecret: string;
  const botToken: string;
  /** Stand-ins for the app's own services and data, which the examples call. */
  const fs: { rm(path: string): Promise<void> };
  const rm: (path: string) => Promise<void>;
  const db: any;
  const pager: any;
  const bank: any;
  const refunds: any;
  const slack: any;
  const chat: { id: string };
  const text: string;
  const message: any;
  const paymentsAgent: () => Agent;
}
`;

/** A heading's anchor as VitePress makes it (its `slugify`, from @mdit-vue/shared), from the heading's markdown. */
function siteAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .replace(/[\u0000-\u001f]/g, '')
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/** A heading's anchor as GitHub makes it, for the README's links into docs/. */
function githubAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

describe('links between pages', () => {
  const headings = new Map(
    parsed.map(({ page, prose }) => [page, [...prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1]!.trim())]),
  );

  it('every link to a heading of a page in docs/ finds that heading', () => {
    const broken: string[] = [];
    for (const { page, prose } of parsed) {
      for (const [, target] of prose.matchAll(/(?<!!)\[[^\]]*\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!) || !target!.includes('#')) continue;
        const [path, hash] = target!.split('#') as [string, string];
        // Site links leave out .md (and index.md for a folder); the README links the files.
        let file =
          path === ''
            ? page
            : join(page === 'README.md' ? '' : join(page, '..'), path)
                .split('\\')
                .join('/');
        if (path.endsWith('/')) file = `${file}/index.md`;
        else if (path !== '' && !file.endsWith('.md')) file = `${file}.md`;
        file = file.replace(/\/{2,}/g, '/');
        const anchor = page === 'README.md' ? githubAnchor : siteAnchor;
        if (!(headings.get(file) ?? []).some((heading) => anchor(heading) === hash)) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the TypeScript in the manual', () => {
  const dir = join(root, '.test-build', `docs-ts-${process.pid}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const blocks = parsed.flatMap(({ blocks }) => blocks).filter((block) => /^(ts|typescript)\b/.test(block.info));

  it('opts a block out only with a reason next to it', () => {
    for (const block of blocks.filter(({ info }) => info.includes('no-check'))) {
      const lines = readFileSync(join(root, block.page), 'utf8').split('\n');
      expect(
        lines.slice(Math.max(0, block.line - 4), block.line - 1).join('\n'),
        `${block.page}:${block.line}`,
      ).toMatch(/<!-- no-check: .+ -->/);
    }
  });

  it('every ```ts block typechecks against the package as published (its built types, @internal names stripped)', async () => {
    const checked = blocks.filter(({ info }) => !info.includes('no-check'));
    expect(checked.length).toBeGreaterThan(20);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'context.d.ts'), context);
    const names = checked.map((block, index) => {
      const name = `block-${String(index).padStart(2, '0')}.ts`;
      // Each block is a module of its own (top-level await, names of its own).
      writeFileSync(join(dir, name), `${block.code}\nexport {};\n`);
      return name;
    });
    // The types as a user gets them: the build's declarations (tsconfig.build.json, so @internal names are stripped),
    // emitted into this run's folder, with countersign and countersign/* pointed at them.
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const types = join(dir, 'types');
    await promisify(execFile)(
      process.execPath,
      [
        tsc,
        '-p',
        join(root, 'tsconfig.build.json'),
        '--emitDeclarationOnly',
        '--declarationMap',
        'false',
        '--outDir',
        types,
      ],
      { cwd: root },
    );
    const repoPaths = (
      JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as {
        compilerOptions: { paths: Record<string, string[]> };
      }
    ).compilerOptions.paths;
    const paths = Object.fromEntries(
      Object.entries(repoPaths).map(([name, [source]]) => [
        name,
        [join(types, source!.replace(/^\.\/src\//, '').replace(/\.ts$/, '.d.ts'))],
      ]),
    );
    // The repository's compiler options; only reading process.env.NAME is let through, as every example reads its
    // settings that way.
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: relative(dir, join(root, 'tsconfig.json')).split('\\').join('/'),
        compilerOptions: {
          noEmit: true,
          noPropertyAccessFromIndexSignature: false,
          sourceMap: false,
          declaration: false,
          paths,
        },
        include: ['*.ts'],
      }),
    );
    const output = await promisify(execFile)(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], {
      cwd: root,
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // Errors point at the page and line of the block.
    const where = new Map(names.map((name, index) => [name, checked[index]!]));
    const errors = [...output.matchAll(/([\w-]+\.ts)\((\d+),(\d+)\): (error [^\n]*)/g)].map(
      ([, file, line, column, message]) => {
        const block = where.get(file!);
        return block
          ? `${block.page}:${block.line + Number(line)}:${column} ${message}`
          : `${file}:${line}:${column} ${message}`;
      },
    );
    expect(errors, output).toEqual([]);
    expect(output).toBe('');
  }, 240_000);
});
