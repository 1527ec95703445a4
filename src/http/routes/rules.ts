import { Hono } from 'hono';
import { z } from 'zod';
import type { NewRule, RuleStore } from '../../index.js';
import { newRuleSchema, HttpProblem, problem, parseJsonBody } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { answerJson } from '../answer-json.js';
import { checkNamedTarget } from '../write-target.js';
import type { RouteSettings } from './route-settings.js';

/** An approver list names someone: an empty one (or a blank name) would read as "anyone", the opposite of what was meant. */
export const approverList = z
  .array(z.string().min(1).max(256).regex(/\S/, 'must not be blank'))
  .min(1, 'must name at least one approver; leave approvers out to let anyone who may decide the tool decide')
  .max(100);
const ruleTarget = z
  .string()
  .min(1)
  .max(256)
  .optional()
  .describe('The rule of the URL; required in a Standard-Webhooks-signed body.');

/** `POST /rules`: a rule to add (`NewRule`). */
export const newRuleBody = newRuleSchema.extend({ approvers: approverList.optional() }).strict();
/** `POST /rules/:ruleId`: enable or disable, put in shadow mode or let act. */
export const ruleStateBody = z
  .strictObject({ enabled: z.boolean().optional(), shadow: z.boolean().optional(), ruleId: ruleTarget })
  .refine((body) => body.enabled !== undefined || body.shadow !== undefined, {
    message: 'name enabled, shadow or both',
  });
/** `DELETE /rules/:ruleId`: nothing, or (signed: required) the rule it deletes. */
export const removeRuleBody = z.strictObject({ ruleId: ruleTarget });

/** The 404 for a rule id the store does not hold. */
export const ruleNotFound = (id: string) =>
  new HttpProblem(problem(404, 'rule_not_found', `No stored rule ${id}; GET /rules lists their ids.`, { ruleId: id }));

/** `GET /rules`, `POST /rules`, `POST /rules/:ruleId` (enable or disable, shadow mode on or off) and `DELETE /rules/:ruleId`: the stored rules of the app's `rules` store. */
export function ruleRoutes({ read, write }: RouteSettings, rules: RuleStore): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/rules', read, async (c) => c.json({ items: await rules.list() }));
  app.post('/rules', ...write, async (c) =>
    answerJson(c, { rule: await rules.add(parseJsonBody(newRuleBody, c.var.rawBody) as NewRule) }, 201),
  );
  app.post('/rules/:ruleId', ...write, async (c) => {
    const id = c.req.param('ruleId');
    const { enabled, shadow, ruleId } = parseJsonBody(ruleStateBody, c.var.rawBody);
    checkNamedTarget(c, 'ruleId', ruleId, id);
    if (!(await rules.list()).some((rule) => rule.id === id)) throw ruleNotFound(id);
    const changed = enabled === undefined ? undefined : await rules.setEnabled(id, enabled);
    return answerJson(c, { rule: shadow === undefined ? changed : await rules.setShadow(id, shadow) });
  });
  app.delete('/rules/:ruleId', ...write, async (c) => {
    const id = c.req.param('ruleId');
    checkNamedTarget(c, 'ruleId', parseJsonBody(removeRuleBody, c.var.rawBody).ruleId, id);
    if (!(await rules.remove(id))) throw ruleNotFound(id);
    return answerJson(c, { removed: true, ruleId: id });
  });
  return app;
}
