// `npm run bench`: runs every bench/*.bench.ts in turn, each in its own process, or only the ones
// named on the command line (`npm run bench -- core policy`, or full paths).
// Run: npx tsx bench/run.ts [name ...]
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const available = readdirSync(join(root, 'bench'))
  .filter((file) => file.endsWith('.bench.ts'))
  .sort();

const nameOf = (file: string) => basename(file).replace(/\.bench\.ts$/, '');
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !available.some((file) => nameOf(file) === nameOf(name)));
if (unknown.length > 0) {
  process.stderr.write(`No bench named ${unknown.join(', ')}. Available: ${available.map(nameOf).join(', ')}.\n`);
  process.exit(2);
}
const selected =
  wanted.length === 0 ? available : available.filter((file) => wanted.some((name) => nameOf(name) === nameOf(file)));

function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    // One process per bench: no JIT state, heap or open handles carry over from the previous one.
    const child = spawn(process.execPath, ['--import', 'tsx', join('bench', file)], { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const failed: string[] = [];
for (const file of selected) {
  process.stdout.write(`\n## ${nameOf(file)} (bench/${file})\n`);
  const code = await run(file);
  if (code !== 0) {
    failed.push(nameOf(file));
    process.stdout.write(`\nbench/${file} exited with ${code}\n`);
  }
}
if (failed.length > 0) {
  process.stdout.write(
    `\nbench: ${selected.length - failed.length} ran, ${failed.length} failed (${failed.join(', ')})\n`,
  );
  process.exit(1);
}
process.stdout.write(`\nbench: ${selected.length} ran\n`);
