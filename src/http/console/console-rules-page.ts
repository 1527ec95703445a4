import type { RuleSuggestion, StoredRule } from '../../index.js';
import { escapeHtml as e } from '../../kit/index.js';
import { hidden } from './approval-card.js';
import { page, signedInHeader } from './console-pages.js';
import type { ConsoleSession } from './console-session.js';

const PRECEDENCE =
  '<details open><summary>How rules decide</summary><ol>' +
  '<li>Rules decide first. When several match a call, <strong>deny</strong> beats <strong>ask</strong> beats <strong>allow</strong>, whatever their order: a stored rule cannot loosen a rule in code that denies or asks.</li>' +
  '<li>A tool approved \u201cfor this run\u201d is allowed for the rest of that run, unless a rule denies it or names approvers the person who approved it is not among.</li>' +
  "<li>With no matching rule, the tool's own <code>needsApproval</code> decides; a tool that says nothing needs approval.</li>" +
  '<li>A change applies from the next call of every run. Disabled rules are kept but match nothing.</li>' +
  '<li>A rule in <strong>shadow</strong> mode never decides: a request it would have allowed says so, until someone lets it act.</li></ol></details>';

/** Which calls a rule or suggestion is bounded to: its `argsMatch`, or every call of the tool. */
const boundsText = (argsMatch: StoredRule['argsMatch']) =>
  argsMatch === undefined
    ? 'every call'
    : Object.entries(argsMatch)
        .map(([path, value]) => `<code>${e(path)}</code> = <code>${e(JSON.stringify(value))}</code>`)
        .join(', ');

/** The suggested rules, each with its evidence and a form that adds it in shadow mode. */
function suggestionsSection(suggestions: readonly RuleSuggestion[], csrf: string): string {
  const item = (found: RuleSuggestion) =>
    `<li><strong>allow <code>${e(found.tool)}</code></strong> for agent <code>${e(found.agent)}</code>: approved ${found.approvals} times by ${e(found.approvedBy.join(', ') || 'unnamed people')}; arguments: ${boundsText(found.argsMatch)}. <span class="muted">${e(found.reason)}</span>` +
    `<form method="post" action="rules/suggested" class="actions">${csrf}${hidden('agent', found.agent)}${hidden('tool', found.tool)}` +
    '<button type="submit" class="approve">Confirm (in shadow mode)</button></form></li>';
  return (
    '<h3>Suggested rules</h3><p>From the decisions this console has seen: tools people approved many times and never refused. A confirmed rule starts in shadow mode.</p>' +
    (suggestions.length === 0
      ? '<p class="empty">No suggestions yet.</p>'
      : `<ul>${suggestions.map(item).join('')}</ul>`)
  );
}

/**
 * The rules page (`GET /console/rules`): the stored rules (the app's `rules` store), add, disable or enable, let a
 * shadow rule act, delete, with the precedence explained; and the suggested rules, each confirmed in shadow mode.
 *
 * @example
 * const html = rulesPage(session, await rules.list(), await ruleSuggestions(runtime, history.search({})));
 */
export function rulesPage(
  session: ConsoleSession,
  rules: readonly StoredRule[] | undefined,
  suggestions: readonly RuleSuggestion[],
  error?: string,
): string {
  const csrf = hidden('csrf', session.csrf);
  const row = (rule: StoredRule) =>
    `<tr><td><code>${e(rule.tool ?? '*')}</code>${rule.connector === undefined ? '' : ` · connector <code>${e(rule.connector)}</code>`}</td>` +
    `<td><strong>${e(rule.action)}</strong></td><td>${e(rule.agent ?? 'every agent')}</td><td>${e(rule.reason ?? '')}${rule.approvers === undefined ? '' : ` (approvers: ${e(rule.approvers.join(', '))})`}</td>` +
    `<td>${boundsText(rule.argsMatch)}</td>` +
    `<td>${rule.enabled ? 'enabled' : 'disabled'}${rule.shadow ? ' · shadow: would allow, does not act' : ''}</td><td><form method="post" action="rules/${e(encodeURIComponent(rule.id))}" class="actions">${csrf}` +
    (rule.shadow ? '<button type="submit" name="op" value="act" class="approve">Let it act</button>' : '') +
    `<button type="submit" name="op" value="${rule.enabled ? 'disable' : 'enable'}">${rule.enabled ? 'Disable' : 'Enable'}</button>` +
    `<button type="submit" name="op" value="delete" class="deny">${rule.shadow ? 'Remove' : 'Delete'}</button></form></td></tr>`;
  const body =
    rules === undefined
      ? '<p>This server has no rule store: pass <code>rules</code> (the <code>RuleStore</code> your agents use) to <code>createApprovalApp</code>.</p>'
      : (rules.length === 0
          ? '<p class="empty">No stored rules.</p>'
          : '<table><caption class="visually-hidden">Stored rules</caption><thead><tr><th scope="col">Tool</th><th scope="col">Action</th><th scope="col">Agent</th><th scope="col">Reason</th><th scope="col">Arguments</th><th scope="col">State</th><th scope="col">Change</th></tr></thead>' +
            `<tbody>${rules.map(row).join('')}</tbody></table>`) +
        suggestionsSection(suggestions, csrf) +
        `<h3>Add a rule</h3><form method="post" action="rules">${csrf}<fieldset><legend>New rule</legend>` +
        '<label>Tool (a name or a glob such as search_*)<input type="text" name="tool" maxlength="256"></label>' +
        '<label>Connector glob (optional)<input type="text" name="connector" maxlength="256"></label>' +
        '<label>Agent (empty: every agent)<input type="text" name="agent" maxlength="128"></label>' +
        '<label>Action<select name="action"><option value="ask">ask</option><option value="allow">allow</option><option value="deny">deny</option></select></label>' +
        '<label>Reason<input type="text" name="reason" maxlength="1000"></label>' +
        '<label>Approvers (comma-separated, optional)<input type="text" name="approvers"></label>' +
        '<p><button type="submit" class="approve">Add rule</button></p></fieldset></form>';
  return page(
    'Rules · countersign',
    `${signedInHeader(session, '../')}<main><h2>Rules</h2>${error === undefined ? '' : `<p class="error" role="alert">${e(error)}</p>`}${PRECEDENCE}${body}</main>`,
    { script: false, root: '../' },
  );
}
