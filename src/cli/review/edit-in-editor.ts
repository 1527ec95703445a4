import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { splitCommandLine } from '../command-line.js';

/**
 * Opens `text` in the reviewer's editor (`$VISUAL`, else `$EDITOR`, else `vi`; a command line such as
 * `code --wait` works) on the terminal the CLI runs in, and returns the file as the editor left it. Rejects when the
 * editor cannot start or exits with an error, which the reviewer reads as a cancelled edit.
 */
export async function editInEditor(
  text: string,
  name: string,
  env: Record<string, string | undefined>,
): Promise<string> {
  const [command, ...args] = splitCommandLine(env['VISUAL'] || env['EDITOR'] || 'vi', '$EDITOR');
  const dir = await mkdtemp(join(tmpdir(), 'countersign-edit-'));
  const file = join(dir, `${name}.json`);
  try {
    await writeFile(file, text, { mode: 0o600 });
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(command!, [...args, file], { stdio: 'inherit', env });
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`the editor (${command}) exited with ${code ?? 'a signal'}`);
    return await readFile(file, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
