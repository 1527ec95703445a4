import { Hono } from 'hono';
import { z } from 'zod';
import { newRuleSchema } from '../../adapters/memory-rule-store.js';
import type { NewRule, RuleStore } from '../../ports/rule-store.js';
import { HttpProblem, problem } from '../../web/problem.js';
import { parseJsonBody } from '../../web/read-body.js';
import type { AppEnv } from '../app-env.js';
import { answerJson } from '../answer-json.js';
import type { RouteSettings } from './route-settings.js';

/** `POST /rules`: a rule to add (`NewRule`). */
export const newRuleBody = newRuleSchema.strict();
/** `POST /rules/:ruleId`: enable or disable. */
export const ruleStateBody = z.strictObject({ enabled: z.boolean() });

/** The 404 for a rule id the store does not hold. */
export const ruleNotFound = (id: string) => new HttpProblem(problem(404, 'rule_not_found', `No stored rule ${id}; GET /rules lists their ids.`, { ruleId: id }));

/** `GET /rules`, `POST /rules`, `POST /rules/:ruleId` (enable or disable) and `DELETE /rules/:ruleId`: the stored rules of the app's `rules` store. */
export function ruleRoutes({ read, write }: RouteSettings, rules: RuleStore): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/rules', read, async (c) => c.json({ items: await rules.list() }));
  app.post('/rules', ...write, async (c) => answerJson(c, { rule: await rules.add(parseJsonBody(newRuleBody, c.var.rawBody) as NewRule) }, 201));
  app.post('/rules/:ruleId', ...write, async (c) => {
    const id = c.req.param('ruleId');
    const { enabled } = parseJsonBody(ruleStateBody, c.var.rawBody);
    if (!(await rules.list()).some((rule) => rule.id === id)) throw ruleNotFound(id);
    return answerJson(c, { rule: await rules.setEnabled(id, enabled) });
  });
  app.delete('/rules/:ruleId', ...write, async (c) => {
    const id = c.req.param('ruleId');
    if (!(await rules.remove(id))) throw ruleNotFound(id);
    return answerJson(c, { removed: true, ruleId: id });
  });
  return app;
}
