import { z } from 'zod';
import { functionSchema } from './function-schema.js';
import { ConfigError } from '../errors.js';
import type { Approvers, ToolContext } from './define-tool.js';

export type PolicyAction = 'allow' | 'ask' | 'deny';

/**
 * One policy rule. Globs (`*` matches any run of characters, `?` one) match
 * tool and connector names; a rule with neither matches every tool.
 */
export interface PolicyRule {
  readonly id?: string;
  readonly tool?: string;
  readonly connector?: string;
  readonly when?: (args: unknown, ctx: ToolContext) => boolean | Promise<boolean>;
  readonly action: PolicyAction;
  readonly reason?: string;
  readonly approvers?: Approvers;
}

export interface PolicyConfig {
  readonly rules?: readonly PolicyRule[];
  /** What to do when neither a rule nor the tool decides. `'ask'` unless set. */
  readonly default?: PolicyAction;
}

export const policyRuleSchema = z.object({
  id: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  connector: z.string().min(1).optional(),
  when: functionSchema().optional(),
  action: z.enum(['allow', 'ask', 'deny'], { error: "must be 'allow', 'ask' or 'deny'" }),
  reason: z.string().optional(),
  approvers: z.union([z.array(z.string()), functionSchema()]).optional(),
});

/** A rule with its globs turned into regular expressions, once. */
export interface CompiledRule {
  readonly rule: PolicyRule;
  readonly id: string;
  readonly tool: RegExp | undefined;
  readonly connector: RegExp | undefined;
}

/** Turns a glob (`github.*`, `*_search`, `read?`) into an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}

export function compileRules(rules: readonly PolicyRule[], idPrefix = 'rule'): CompiledRule[] {
  return rules.map((rule, index) => {
    const parsed = policyRuleSchema.safeParse(rule);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(`Policy rule ${rule?.id ?? index}: ${issue.path.join('.') || 'rule'} ${issue.message}.`);
    }
    return {
      rule,
      id: rule.id ?? `${idPrefix}#${index}`,
      tool: rule.tool === undefined ? undefined : globToRegExp(rule.tool),
      connector: rule.connector === undefined ? undefined : globToRegExp(rule.connector),
    };
  });
}

const strength: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * The strongest matching rule (deny beats ask beats allow, whatever the
 * order), or undefined when none matches. `when` predicates run only for
 * rules whose globs match and that could still change the outcome.
 */
export async function strongestRule(
  rules: readonly CompiledRule[],
  call: { toolName: string; connector: string | undefined; args: unknown; ctx: ToolContext },
): Promise<CompiledRule | undefined> {
  let best: CompiledRule | undefined;
  for (const compiled of rules) {
    if (best && strength[compiled.rule.action] <= strength[best.rule.action]) continue;
    if (compiled.tool && !compiled.tool.test(call.toolName)) continue;
    if (compiled.connector && (call.connector === undefined || !compiled.connector.test(call.connector))) continue;
    if (compiled.rule.when && !(await compiled.rule.when(call.args, call.ctx))) continue;
    best = compiled;
    if (compiled.rule.action === 'deny') break;
  }
  return best;
}
