import type { GrantState } from '../../index.js';
import { escapeHtml as e } from '../../kit/index.js';
import { hidden } from './approval-card.js';
import { page, signedInHeader } from './console-pages.js';
import type { ConsoleSession } from './console-session.js';
import { shownName } from './console-text.js';
import { timeHtml } from './time-html.js';

/** Text a person or a model chose (names, sessions, argument bounds), shown through the display filter. */
const shown = (text: string) => e(shownName(text));

/** Which calls a grant covers: every call of its tool, or those whose arguments match each of its `argsMatch` entries. */
function covers(grant: GrantState): string {
  const entries = Object.entries(grant.argsMatch ?? {});
  if (entries.length === 0) return 'any arguments';
  return entries
    .map(
      ([path, value]) =>
        `<code>${shown(path)}</code> ${typeof value === 'string' ? 'matches' : 'is'} <code>${shown(JSON.stringify(value))}</code>`,
    )
    .join(', ');
}

/** What is left of a grant: its uses and its time. */
function bounds(grant: GrantState): string {
  const uses =
    grant.uses === undefined
      ? `used ${grant.used} times, no limit`
      : `${grant.uses - grant.used} of ${grant.uses} uses left`;
  const until = grant.expiresAt === undefined ? 'until revoked' : `until ${timeHtml(grant.expiresAt)}`;
  return `${uses}, ${until}`;
}

/**
 * The grants page (`GET /console/grants`): the live session and agent grants (`runtime.grants()`), each with a
 * Revoke button that takes effect for the very next call.
 *
 * @example
 * const html = grantsPage(session, await runtime.grants());
 */
export function grantsPage(session: ConsoleSession, grants: readonly GrantState[]): string {
  const row = (grant: GrantState) =>
    `<tr><td><code>${shown(grant.toolName)}</code></td><td><strong>${e(grant.decision)}</strong></td>` +
    `<td>${grant.scope === 'session' ? `session <code>${shown(grant.sessionId ?? '')}</code>` : 'every run'} of ${shown(grant.agentName)}</td>` +
    `<td>${covers(grant)}</td><td>${shown(grant.grantedBy ?? '')}</td><td>${bounds(grant)}</td>` +
    `<td><form method="post" action="grants/${e(encodeURIComponent(grant.id))}" class="actions">${hidden('csrf', session.csrf)}` +
    `<button type="submit" class="deny" aria-label="Revoke the grant of ${e(grant.toolName)}">Revoke</button></form></td></tr>`;
  const body =
    grants.length === 0
      ? '<p class="empty">No live grants.</p>'
      : '<table><caption class="visually-hidden">Live grants</caption><thead><tr><th scope="col">Tool</th><th scope="col">Decision</th><th scope="col">For</th><th scope="col">Arguments</th><th scope="col">By</th><th scope="col">Left</th><th scope="col">Change</th></tr></thead>' +
        `<tbody>${grants.map(row).join('')}</tbody></table>`;
  return page(
    'Grants · countersign',
    `${signedInHeader(session, '../')}<main><h2>Grants</h2><p>Decisions given for a session or an agent that decide later calls. A revoked grant decides nothing from the next call on.</p>${body}</main>`,
    // The script shows the times in the browser's time zone; the page works without it.
    { script: true, root: '../' },
  );
}
