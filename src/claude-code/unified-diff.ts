// An edit's old and new text as the hunks of a unified diff a person reads (and may change), and those hunks read
// back into old and new text. Every line of the snippet is in its hunk, the unchanged ones as context, so reading a
// hunk back gives its old and new text exactly; line numbers count from the snippet's first line, not the file's.
import { EditIssue } from './edit-issue.js';

/** One replacement: the text it looks for, the text it puts instead, and whether every occurrence is replaced. */
export interface TextChange {
  readonly oldText: string;
  readonly newText: string;
  readonly replaceAll?: boolean;
}

type Op = readonly [' ' | '-' | '+', string];

/** Above this many line pairs the diff shows the old lines removed and the new ones added, without a common-line search. */
const MAX_CELLS = 1_000_000;
/** The heading a hunk carries when its change replaces every occurrence. */
const REPLACE_ALL = '(replace all)';

/** The line operations that turn `before` into `after`, unchanged lines kept (a longest common subsequence). */
function lineOps(before: readonly string[], after: readonly string[]): Op[] {
  const rows = before.length;
  const cols = after.length;
  if (rows * cols > MAX_CELLS)
    return [...before.map((line): Op => ['-', line]), ...after.map((line): Op => ['+', line])];
  // common[i][j]: the longest common subsequence of before[i..] and after[j..], one flat array.
  const common = new Uint32Array((rows + 1) * (cols + 1));
  const at = (i: number, j: number) => i * (cols + 1) + j;
  for (let i = rows - 1; i >= 0; i--)
    for (let j = cols - 1; j >= 0; j--)
      common[at(i, j)] =
        before[i] === after[j] ? common[at(i + 1, j + 1)]! + 1 : Math.max(common[at(i + 1, j)]!, common[at(i, j + 1)]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < cols) {
    if (i < rows && j < cols && before[i] === after[j]) {
      ops.push([' ', before[i]!]);
      i++;
      j++;
    } else if (i < rows && (j === cols || common[at(i + 1, j)]! >= common[at(i, j + 1)]!))
      ops.push(['-', before[i++]!]);
    else ops.push(['+', after[j++]!]);
  }
  return ops;
}

/** One hunk of `change`: a header with its line counts (and `(replace all)` when it says so), then its lines. */
function hunk(change: TextChange): string {
  const before = change.oldText.split('\n');
  const after = change.newText.split('\n');
  const heading = change.replaceAll ? ` ${REPLACE_ALL}` : '';
  const lines = lineOps(before, after).map(([mark, line]) => `${mark}${line}`);
  return [`@@ -1,${before.length} +1,${after.length} @@${heading}`, ...lines].join('\n');
}

/**
 * The changes as a unified diff, one hunk each.
 */
export function unifiedDiff(changes: readonly TextChange[]): string {
  return changes.map(hunk).join('\n');
}

/**
 * The changes a unified diff says, one a hunk: its context and removed lines are the old text, its context and added
 * lines the new text. An empty line counts as an empty context line (editors strip a lone space); any other line
 * outside `@@`, ` `, `-`, `+` or `\` throws an `EditIssue`.
 */
export function readUnifiedDiff(diff: string): TextChange[] {
  const lines = diff.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const hunks: { old: string[]; new: string[]; replaceAll: boolean }[] = [];
  for (const [index, line] of lines.entries()) {
    const header = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$/.exec(line);
    if (header) {
      hunks.push({ old: [], new: [], replaceAll: header[1]!.trim() === REPLACE_ALL });
      continue;
    }
    const current = hunks.at(-1);
    const mark = line[0] ?? ' ';
    if (current === undefined || !' -+\\'.includes(mark))
      throw new EditIssue(
        'diff',
        `line ${index + 1} is not a line of a hunk (@@, space, - or +): ${line.slice(0, 80)}`,
      );
    if (mark !== '+' && mark !== '\\') current.old.push(line.slice(1));
    if (mark !== '-' && mark !== '\\') current.new.push(line.slice(1));
  }
  if (hunks.length === 0) throw new EditIssue('diff', 'has no hunk (a line starting with @@)');
  return hunks.map((found) => ({
    oldText: found.old.join('\n'),
    newText: found.new.join('\n'),
    ...(found.replaceAll ? { replaceAll: true } : {}),
  }));
}
