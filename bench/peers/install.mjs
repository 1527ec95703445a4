// Installs bench/peers' own dependencies (never the library's) with `npm ci`, only when node_modules
// is missing or was installed from another lockfile. Run by `npm run bench:peers` before the bench.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const stamp = join(dir, 'node_modules', '.installed-from-lockfile');
const digest = createHash('sha256')
  .update(readFileSync(join(dir, 'package.json')))
  .update(readFileSync(join(dir, 'package-lock.json')))
  .digest('hex');

if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) process.exit(0);
process.stdout.write('bench/peers: installing its own dependencies (npm ci in bench/peers)\n');
const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
if (result.status !== 0) {
  process.stderr.write('bench/peers: npm ci failed. If you changed bench/peers/package.json, run `npm install` in bench/peers to update its lockfile.\n');
  process.exit(result.status ?? 1);
}
writeFileSync(stamp, digest);
