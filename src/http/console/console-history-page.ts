import { escapeHtml as e } from '../../kit/index.js';
import { argLines } from './args-view.js';
import type { ArgsEdit, HistoryEntry, HistoryQuery } from './audit-history.js';
import { page, signedInHeader } from './console-pages.js';
import type { ConsoleSession } from './console-session.js';
import { shownName, shownText } from './console-text.js';
import { lineDiff } from './line-diff.js';
import { timeHtml } from './time-html.js';

/** Names and reasons are whoever decided's text: shown through the console's display filter, then escaped. */
const escapedName = (text: string) => e(shownName(text));

/** An edit as a diff of the arguments' lines: removed lines marked `-`, added ones `+`. */
function editDiff(edit: ArgsEdit): string {
  const lines = lineDiff(argLines(edit.before), argLines(edit.after))
    .map(({ kind, line }) =>
      kind === 'same' ? `  ${e(line)}\n` : kind === 'removed' ? `<del>- ${e(line)}</del>` : `<ins>+ ${e(line)}</ins>`,
    )
    .join('');
  return `<pre class="diff" aria-label="Arguments as edited: - the original, + the edit">${lines}</pre>`;
}

/** What was decided: the decision, who or what made it, its reach, and an edit (as a diff when this console recorded it). */
function decisionCell(entry: HistoryEntry): string {
  const what = `${e(entry.decision)}${entry.source === 'human' ? '' : ` (${e(entry.source)})`}${entry.scope === 'run' ? ', for the run' : ''}`;
  if (entry.editedArgsDigest === undefined) return what;
  return `${what}, with edited arguments${entry.edit === undefined ? '' : editDiff(entry.edit)}`;
}

const day = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString().slice(0, 16));

/**
 * The history (`GET /console/history`): decisions across runs, newest first, searchable by tool, person, decision and
 * time, with the same search exported as JSON Lines.
 *
 * @example
 * const html = historyPage(session, history.search(query), query, 'history.jsonl?decision=denied');
 */
export function historyPage(
  session: ConsoleSession,
  entries: readonly HistoryEntry[],
  query: HistoryQuery,
  exportHref: string,
): string {
  const rows = entries
    .map(
      (entry) =>
        `<tr><td>${timeHtml(entry.at)}</td><td><code>${escapedName(entry.toolName)}</code></td>` +
        `<td>${decisionCell(entry)}</td><td>${escapedName(entry.by ?? '')}</td>` +
        `<td>${e(shownText(entry.reason ?? ''))}</td><td>${escapedName(entry.agentName)} · <code>${escapedName(entry.runId)}</code></td></tr>`,
    )
    .join('');
  const input = (name: keyof HistoryQuery, label: string, value: string, type = 'text') =>
    `<label>${label}<input type="${type}" name="${name}" value="${e(value)}"></label>`;
  const decision = (value: string, label: string) =>
    `<option value="${value}"${(query.decision ?? '') === value ? ' selected' : ''}>${label}</option>`;
  return page(
    'History · countersign',
    signedInHeader(session, '../') +
      '<main><h2>History</h2><p>Decisions this server has seen, newest first (the last 1,000).</p>' +
      '<form method="get" action="history" class="filters" role="search" aria-label="Search the history">' +
      input('tool', 'Tool', query.tool ?? '', 'search') +
      input('by', 'Person', query.by ?? '', 'search') +
      `<label>Decision<select name="decision">${decision('', 'any')}${decision('approved', 'approved')}${decision('denied', 'denied')}</select></label>` +
      input('since', 'From (UTC)', day(query.since), 'datetime-local') +
      input('until', 'To (UTC)', day(query.until), 'datetime-local') +
      `<button type="submit">Search</button> <a href="${e(exportHref)}" download>Export JSON Lines</a></form>` +
      (entries.length === 0
        ? '<p class="empty">No decision matches.</p>'
        : `<table><caption class="visually-hidden">Decisions</caption><thead><tr><th scope="col">When</th><th scope="col">Tool</th><th scope="col">Decision</th><th scope="col">By</th><th scope="col">Reason</th><th scope="col">Run</th></tr></thead><tbody>${rows}</tbody></table>`) +
      '</main>',
    // The script shows the times in the browser's time zone; the page works without it.
    { script: true, root: '../' },
  );
}
