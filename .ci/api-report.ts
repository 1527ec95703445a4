// The public API report: every name each subpath exports, with its type as the compiler sees it, one file a subpath
// under api/. `npm run api:report` writes it; CI runs `npm run api:check`, which fails when the sources export
// something the committed report does not say, so a change to the public API shows in a diff someone reviews.
// It leaves out what `stripInternal` leaves out of the published types: a name or a member whose declaration is tagged
// `@internal` (exported between our own files, not for users).
// Run: npx tsx .ci/api-report.ts [--check]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const check = process.argv.includes('--check');
const exportsMap = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports as Record<
  string,
  string | { types: string }
>;

/** The source entry of a subpath: `./dist/stores/redis/index.d.ts` is `src/stores/redis/index.ts`. */
const entries = Object.entries(exportsMap)
  .filter(([, target]) => typeof target !== 'string')
  .map(([subpath, target]) => ({
    subpath,
    file: join(root, (target as { types: string }).types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')),
    report: `${subpath === '.' ? 'countersign' : `countersign-${subpath.slice(2)}`}.api.md`,
  }));

const config = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.build.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
)!;
const program = ts.createProgram({ rootNames: entries.map((entry) => entry.file), options: config.options });
const checker = program.getTypeChecker();
const flags =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseFullyQualifiedType |
  ts.TypeFormatFlags.WriteArrowStyleSignature;

/** True when a declaration carries `@internal`, which `stripInternal` (tsconfig.build.json) drops from the `.d.ts`. */
function isInternal(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((declaration) =>
    ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'internal'),
  );
}

/**
 * The members of an object type, one a line, each printed where it is declared: a member taken from another type
 * (`Pick`, `Partial`) names its type in the scope of that type's file, not of the file that picked it.
 */
function membersOf(type: ts.Type, declaration: ts.Declaration): string[] {
  return checker
    .getPropertiesOfType(type)
    .filter((member) => !member.getName().startsWith('#') && !isInternal(member))
    .map((member) => {
      const at = member.valueDeclaration ?? member.declarations?.[0] ?? declaration;
      const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
      return `  - ${member.getName()}${optional}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(member, at), at, flags)}`;
    });
}

/** One line for an exported name: its kind and its type; an interface or class lists its members, one a line. */
function describe(symbol: ts.Symbol): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const name = symbol.getName();
  const declaration = target.declarations?.[0];
  if (declaration === undefined) return `- ${name}`;
  if (ts.isInterfaceDeclaration(declaration) || ts.isClassDeclaration(declaration)) {
    const members = membersOf(checker.getDeclaredTypeOfSymbol(target), declaration);
    const kind = ts.isClassDeclaration(declaration) ? 'class' : 'interface';
    const statics = ts.isClassDeclaration(declaration)
      ? ` (constructor ${checker.typeToString(checker.getTypeOfSymbolAtLocation(target, declaration), declaration, flags)})`
      : '';
    return [`- ${kind} ${name}${statics}`, ...members].join('\n');
  }
  if (ts.isTypeAliasDeclaration(declaration)) {
    const type = checker.getDeclaredTypeOfSymbol(target);
    const line = `- type ${name} = ${checker.typeToString(type, declaration, flags | ts.TypeFormatFlags.InTypeAlias)}`;
    // An alias made of another type's members (`Partial<Pick<...>>`) lists them, each printed where it is declared.
    return line.includes(root) ? [`- type ${name}`, ...membersOf(type, declaration)].join('\n') : line;
  }
  return `- ${ts.isFunctionDeclaration(declaration) ? 'function' : 'const'} ${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(target, declaration), declaration, flags)}`;
}

const outDir = join(root, 'api');
mkdirSync(outDir, { recursive: true });
const stale: string[] = [];
for (const entry of entries) {
  const source = program.getSourceFile(entry.file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`api-report: cannot read ${entry.file}`);
  const names = checker
    .getExportsOfModule(moduleSymbol)
    .filter(
      (symbol) =>
        !isInternal(symbol) &&
        !isInternal(symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol),
    )
    .sort((a, b) => a.getName().localeCompare(b.getName()));
  const text = `# ${entry.subpath === '.' ? 'countersign' : `countersign/${entry.subpath.slice(2)}`}\n\n${names.map(describe).join('\n')}\n`;
  // A type printed by file path would make the report differ from one checkout to the next.
  if (text.includes(root))
    throw new Error(
      `api-report: ${entry.report} names a file path; print that type by its name:\n${text
        .split('\n')
        .filter((line) => line.includes(root))
        .join('\n')}`,
    );
  const path = join(outDir, entry.report);
  if (!check) writeFileSync(path, text);
  else if (
    (() => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return '';
      }
    })() !== text
  )
    stale.push(`api/${entry.report}`);
}
if (stale.length > 0) {
  process.stderr.write(
    `The public API changed and the report does not say so: ${stale.join(', ')}. Run npm run api:report, review the diff and commit it.\n`,
  );
  process.exit(1);
}
