import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import type { NewRule, RuleStore } from '../../index.js';
import { HttpProblem, problem, problemFor, parseWith } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import type { AuditHistory, HistoryQuery } from '../console/audit-history.js';
import { readConsoleBody } from '../console/console-body.js';
import { historyPage } from '../console/console-history-page.js';
import { CONSOLE_HEADERS } from '../console/console-pages.js';
import { rulesPage } from '../console/console-rules-page.js';
import { ruleSuggestions } from '../console/rule-suggestions.js';
import type { ConsoleSessions } from '../console/console-session.js';
import type { RouteSettings } from './route-settings.js';
import { approverList, ruleNotFound } from './rules.js';

const suggestionGone = (agent: string, tool: string) =>
  new HttpProblem(
    problem(
      409,
      'suggestion_gone',
      `No rule is suggested for ${tool} of agent ${agent} now (a later refusal, or the history let it go); reload the rules page.`,
    ),
  );

const blank = (value: unknown) => (value === '' ? undefined : value);
/** The largest epoch ms a `Date` holds. */
const MAX_DATE_MS = 8.64e15;
/** A `datetime-local` value (`2026-11-25T21:50`), read as UTC, or epoch ms. */
const instant = z.preprocess(
  blank,
  z
    .string()
    .max(40)
    .transform((text, context) => {
      const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`);
      // Epoch ms past what a Date can hold (±8.64e15) would be a RangeError when the page shows it.
      if (Number.isNaN(ms) || Math.abs(ms) > MAX_DATE_MS)
        context.addIssue({ code: 'custom', message: 'must be a date and time such as 2026-11-25T21:50' });
      return ms;
    })
    .optional(),
);
const historyQuery = z.object({
  tool: z.preprocess(blank, z.string().max(256).optional()),
  by: z.preprocess(blank, z.string().max(256).optional()),
  decision: z.preprocess(blank, z.enum(['approved', 'denied']).optional()),
  since: instant,
  until: instant,
});

const ruleForm = z.object({
  csrf: z.string().max(100).optional(),
  tool: z.preprocess(blank, z.string().max(256).optional()),
  connector: z.preprocess(blank, z.string().max(256).optional()),
  agent: z.preprocess(blank, z.string().max(128).optional()),
  action: z.enum(['allow', 'ask', 'deny']),
  reason: z.preprocess(blank, z.string().max(1000).optional()),
  approvers: z.preprocess(blank, z.string().max(4000).optional()),
});
const ruleChange = z.object({
  csrf: z.string().max(100).optional(),
  op: z.enum(['enable', 'disable', 'act', 'delete']),
});
const suggestionPick = z.object({
  csrf: z.string().max(100).optional(),
  agent: z.string().min(1).max(128),
  tool: z.string().min(1).max(256),
});

/**
 * The console's records: the history of decisions (`GET /console/history`, exported as JSON Lines by
 * `GET /console/history.jsonl`, which also takes the bearer token) and the rules page (`GET /console/rules`, with
 * forms that add, disable, enable, let act and delete stored rules, and confirm a suggested rule in shadow mode, CSRF
 * checked; token sessions only).
 */
export function consoleRecordRoutes(
  { read, runtime }: RouteSettings,
  own: {
    readonly sessions: ConsoleSessions;
    readonly history: AuditHistory;
    readonly rules: RuleStore | undefined;
    readonly maxBodyBytes: number;
  },
): Hono<AppEnv> {
  const { sessions, history, rules } = own;
  const app = new Hono<AppEnv>();
  const html = (c: Context<AppEnv>, status: number, text: string) =>
    c.newResponse(text, status as 200, CONSOLE_HEADERS);
  const queryOf = (c: Context<AppEnv>): HistoryQuery => parseWith(historyQuery, c.req.query(), 'query');

  app.get('/console/history', (c) => {
    const session = sessions.requireToken(c);
    history.start();
    const query = queryOf(c);
    const search = new URL(c.req.url).search;
    return html(c, 200, historyPage(session, history.search(query), query, `history.jsonl${search}`));
  });

  app.get('/console/history.jsonl', read, (c) => {
    const lines = history.search(queryOf(c)).map((entry) => `${JSON.stringify(entry)}\n`);
    return c.body(lines.join(''), 200, {
      'content-type': 'application/jsonl; charset=utf-8',
      'content-disposition': 'attachment; filename="countersign-history.jsonl"',
    });
  });

  /**
   * The rules page's suggestions: from the history, which starts listening when the page is first opened; none for an
   * agent and tool a stored rule already names (one confirmed already, shadow or acting).
   */
  const suggestions = async () => {
    history.start();
    if (rules === undefined) return [];
    const named = new Set((await rules.list()).map((rule) => JSON.stringify([rule.agent, rule.tool])));
    const found = await ruleSuggestions(runtime, history.search({}));
    return found.filter((item) => !named.has(JSON.stringify([item.agent, item.tool])));
  };

  app.get('/console/rules', async (c) => {
    const session = sessions.requireToken(c);
    return html(c, 200, rulesPage(session, await rules?.list(), await suggestions()));
  });

  /** A refused change, shown on the rules page (a 5xx is not a refusal, and goes to the app's error handler). */
  const refused = async (c: Context<AppEnv>, error: unknown) => {
    const answer = problemFor(error);
    if (answer.unexpected) throw error;
    const page = rulesPage(sessions.require(c), await rules?.list(), await suggestions(), answer.problem.detail);
    return html(c, answer.problem.status, page);
  };

  // Before `/console/rules/:ruleId`, which would take "suggested" for a rule id.
  app.post('/console/rules/suggested', async (c) => {
    sessions.requireToken(c);
    const { fields } = await readConsoleBody(c, suggestionPick, own.maxBodyBytes);
    sessions.requireWrite(c, fields);
    if (rules === undefined) throw ruleNotFound('(no rule store)');
    // Drawn again here from the history, never from the form: the form names a suggestion, not its bounds.
    const found = (await suggestions()).find((item) => item.agent === fields.agent && item.tool === fields.tool);
    if (found === undefined) return refused(c, suggestionGone(fields.agent, fields.tool));
    await rules.add({
      agent: found.agent,
      tool: found.tool,
      action: 'allow',
      shadow: true,
      reason: `suggested: ${found.reason}`,
      ...(found.argsMatch === undefined ? {} : { argsMatch: found.argsMatch }),
    });
    return c.newResponse(null, 303, { location: '../rules', 'cache-control': 'no-store' });
  });

  app.post('/console/rules', async (c) => {
    sessions.requireToken(c);
    const { fields } = await readConsoleBody(c, ruleForm, own.maxBodyBytes);
    sessions.requireWrite(c, fields);
    if (rules === undefined) throw ruleNotFound('(no rule store)');
    const { csrf: _, approvers, ...rule } = fields;
    const list = approvers
      ?.split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    try {
      // A field that names nobody (", ,") is refused: read as no approvers, it would let anyone decide.
      if (list !== undefined) parseWith(z.object({ approvers: approverList }), { approvers: list }, 'body');
      await rules.add({ ...rule, ...(list === undefined ? {} : { approvers: list }) } as NewRule);
    } catch (error) {
      return refused(c, error);
    }
    return c.newResponse(null, 303, { location: 'rules', 'cache-control': 'no-store' });
  });

  app.post('/console/rules/:ruleId', async (c) => {
    sessions.requireToken(c);
    const { fields } = await readConsoleBody(c, ruleChange, own.maxBodyBytes);
    sessions.requireWrite(c, fields);
    const id = c.req.param('ruleId');
    if (rules === undefined || !(await rules.list()).some((rule) => rule.id === id))
      return refused(c, ruleNotFound(id));
    if (fields.op === 'delete') await rules.remove(id);
    else if (fields.op === 'act') await rules.setShadow(id, false);
    else await rules.setEnabled(id, fields.op === 'enable');
    return c.newResponse(null, 303, { location: '../rules', 'cache-control': 'no-store' });
  });

  return app;
}
