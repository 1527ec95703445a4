import { escapeHtml as e } from '../../kit/index.js';
import type { InsightsAnswer, InsightsCounts } from '../insights-of.js';
import { barChart } from './bar-chart.js';
import { page, signedInHeader } from './console-pages.js';
import type { ConsoleSession } from './console-session.js';
import { shownName } from './console-text.js';
import { timeHtml } from './time-html.js';

/** A time to decide as a person reads it: `850 ms`, `12 s`, `4.5 min`, `2.1 h`. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const rateText = (rate: number | null) => (rate === null ? '–' : `${Math.round(rate * 100)}%`);

type Row = InsightsCounts & { readonly name: string };

function table(caption: string, nameHeader: string, rows: readonly Row[]): string {
  const cells = rows
    .map(
      (row) =>
        `<tr><th scope="row"><code>${e(shownName(row.name))}</code></th><td>${row.requests}</td><td>${row.approved}</td>` +
        `<td>${row.denied}</td><td>${row.expired}</td><td>${row.dismissed}</td><td>${rateText(row.approvalRate)}</td>` +
        `<td>${row.timeToDecideMs === null ? '–' : durationText(row.timeToDecideMs.median)}</td>` +
        `<td>${row.timeToDecideMs === null ? '–' : durationText(row.timeToDecideMs.p90)}</td></tr>`,
    )
    .join('');
  const head = [
    nameHeader,
    'Requests',
    'Approved',
    'Denied',
    'Expired',
    'Dismissed',
    'Approval rate',
    'Median time',
    'p90 time',
  ]
    .map((name) => `<th scope="col">${name}</th>`)
    .join('');
  // Nine columns are wider than a phone: the table scrolls in its own box (focusable, for the keyboard), the page does not.
  return `<div class="scroll" tabindex="0" role="region" aria-label="${e(caption)}"><table><caption class="visually-hidden">${e(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${cells}</tbody></table></div>`;
}

function charts(what: string, rows: readonly Row[]): string {
  const rated = rows.filter((row) => row.approvalRate !== null);
  const timed = rows.filter((row) => row.timeToDecideMs !== null);
  const longest = Math.max(0, ...timed.map((row) => row.timeToDecideMs!.median));
  return (
    '<div class="charts">' +
    (rated.length === 0
      ? ''
      : barChart(
          `Approval rate ${what}`,
          rated.map((row) => ({ label: row.name, value: row.approvalRate!, text: rateText(row.approvalRate) })),
          1,
        )) +
    (timed.length === 0
      ? ''
      : barChart(
          `Median time to decide ${what}`,
          timed.map((row) => ({
            label: row.name,
            value: row.timeToDecideMs!.median,
            text: durationText(row.timeToDecideMs!.median),
          })),
          longest,
        )) +
    '</div>'
  );
}

const section = (title: string, nameHeader: string, what: string, rows: readonly Row[]) =>
  `<section><h3>${title}</h3>${table(title, nameHeader, rows)}${charts(what, rows)}</section>`;

/**
 * The insights page (`GET /console/insights`): per tool and per approver, the requests, their outcomes, the approval
 * rate and the time to decide, as tables and bar charts, over a window the person picks, with where the numbers come
 * from said on the page.
 */
export function insightsPage(session: ConsoleSession, insights: InsightsAnswer): string {
  const tools = insights.tools.map((row) => ({ ...row, name: row.tool }));
  const approvers = insights.approvers.map((row) => ({ ...row, name: row.approver ?? '(nobody named, expired)' }));
  const source =
    `<p>From the decisions this server has seen since ${timeHtml(insights.listeningSince)} (kept in memory, the last ` +
    `${insights.limit.toLocaleString('en')}${insights.dropped ? '; older ones were let go, so the window may start later' : ''}): ` +
    `${insights.count} decided ${insights.count === 1 ? 'request' : 'requests'} from ${timeHtml(insights.since)} to ${timeHtml(insights.until)}. ` +
    'The approval rate is of the requests approved or denied; the time to decide is of those a person answered.</p>';
  const since = new Date(insights.since).toISOString().slice(0, 16);
  return page(
    'Insights · countersign',
    signedInHeader(session, '../') +
      '<main class="insights"><h2>Insights</h2>' +
      source +
      '<form method="get" action="insights" class="filters" aria-label="Window">' +
      `<label>From (UTC)<input type="datetime-local" name="since" value="${e(since)}"></label>` +
      '<button type="submit">Show</button></form>' +
      (insights.count === 0
        ? '<p class="empty">No request was decided in this window.</p>'
        : section('By tool', 'Tool', 'by tool', tools) + section('By approver', 'Approver', 'by approver', approvers)) +
      '</main>',
    { script: true, root: '../' },
  );
}
