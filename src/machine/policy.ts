import { z } from 'zod';
import { functionSchema } from './function-schema.js';
import { ConfigError } from '../errors.js';
import type { Approvers, ToolContext } from './define-tool.js';

export type PolicyAction = 'allow' | 'ask' | 'deny';

/** What a rule's `when` sees besides the arguments: the call's context and the tool itself. */
export interface PolicyContext extends ToolContext {
  readonly tool: { readonly name: string; readonly description: string; readonly connector?: string };
}

/**
 * One policy rule. Globs (`*` matches any run of characters, `?` one) match
 * tool and connector names; a rule with neither matches every tool.
 */
export interface PolicyRule {
  readonly id?: string;
  readonly tool?: string;
  readonly connector?: string;
  readonly when?: (args: any, ctx: PolicyContext) => boolean | Promise<boolean>;
  readonly action: PolicyAction;
  readonly reason?: string;
  readonly approvers?: Approvers;
}

export interface PolicyConfig {
  readonly rules?: readonly PolicyRule[];
  /** What to do when neither a rule nor the tool decides. `'ask'` unless set. */
  readonly default?: PolicyAction;
}

const policyRuleSchema = z.object({
  id: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  connector: z.string().min(1).optional(),
  when: functionSchema('must be a function (args, ctx) => boolean').optional(),
  action: z.enum(['allow', 'ask', 'deny'], { error: "must be 'allow', 'ask' or 'deny'" }),
  reason: z.string().optional(),
  approvers: z.union([z.array(z.string()), functionSchema()]).optional(),
});

/** A rule with its globs turned into regular expressions, once. */
export interface CompiledRule {
  readonly rule: PolicyRule;
  readonly id: string;
  /** Position in the rule list: among matching rules of one action the first listed is reported. */
  readonly order: number;
  readonly tool: RegExp | undefined;
  readonly connector: RegExp | undefined;
}

/** The call a rule set is asked about. */
export interface PolicyTarget {
  readonly toolName: string;
  readonly connector: string | undefined;
  readonly args: unknown;
  readonly ctx: PolicyContext;
}

const GLOB_CHARS = /[*?]/;

function globSource(glob: string): string {
  return glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
}

/** Turns a glob (`github.*`, `*_search`, `read?`) into an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${globSource(glob)}$`);
}

/**
 * Rules that must be checked one by one (a `when` or a connector), indexed by
 * the literal start of their tool glob, so a call only visits the rules whose
 * glob could match its name.
 */
class PrefixIndex {
  readonly #byPrefix = new Map<string, CompiledRule[]>();
  readonly #always: CompiledRule[] = [];

  add(compiled: CompiledRule): void {
    const prefix = compiled.rule.tool?.split(/[*?]/, 1)[0] ?? '';
    if (prefix === '') {
      this.#always.push(compiled);
      return;
    }
    const list = this.#byPrefix.get(prefix);
    if (list) list.push(compiled);
    else this.#byPrefix.set(prefix, [compiled]);
  }

  /** The rules whose glob may match `name`, in list order. */
  candidates(name: string): CompiledRule[] {
    const found = [...this.#always];
    for (let length = 1; length <= name.length; length++) {
      const list = this.#byPrefix.get(name.slice(0, length));
      if (list) found.push(...list);
    }
    return found.length > 1 ? found.sort((a, b) => a.order - b.order) : found;
  }
}

/**
 * The rules of one action, arranged so a lookup does not walk them one by
 * one: exact tool names in a map, plain globs in one combined expression
 * (a capture group per rule says which matched), and rules with a connector
 * or a `when` in a prefix index.
 */
class ActionBucket {
  readonly #exact = new Map<string, CompiledRule>();
  readonly #globRules: CompiledRule[] = [];
  readonly #individual = new PrefixIndex();
  #combined: RegExp | undefined;

  add(compiled: CompiledRule): void {
    const { rule } = compiled;
    if (rule.when !== undefined || rule.connector !== undefined || rule.tool === undefined) this.#individual.add(compiled);
    else if (!GLOB_CHARS.test(rule.tool)) {
      if (!this.#exact.has(rule.tool)) this.#exact.set(rule.tool, compiled);
    } else this.#globRules.push(compiled);
  }

  seal(): void {
    if (this.#globRules.length > 0) {
      this.#combined = new RegExp(`^(?:${this.#globRules.map((compiled) => `(${globSource(compiled.rule.tool!)})`).join('|')})$`);
    }
  }

  async match(target: PolicyTarget): Promise<CompiledRule | undefined> {
    let best = this.#exact.get(target.toolName);
    const found = this.#combined?.exec(target.toolName);
    if (found) {
      const compiled = this.#globRules[found.findIndex((group, position) => position > 0 && group !== undefined) - 1]!;
      if (!best || compiled.order < best.order) best = compiled;
    }
    for (const compiled of this.#individual.candidates(target.toolName)) {
      if (best && compiled.order > best.order) break;
      if (compiled.tool && !compiled.tool.test(target.toolName)) continue;
      if (compiled.connector && (target.connector === undefined || !compiled.connector.test(target.connector))) continue;
      if (compiled.rule.when) {
        const verdict = compiled.rule.when(target.args, target.ctx);
        if (!(verdict instanceof Promise ? await verdict : verdict)) continue;
      }
      best = compiled;
      break;
    }
    return best;
  }
}

/**
 * Compiled rules. `strongest` finds the rule that decides a call: deny beats
 * ask beats allow whatever their order, and among rules of one action the
 * first listed is the one reported in the audit.
 */
export class RuleSet {
  readonly rules: readonly CompiledRule[];
  readonly #buckets: Record<PolicyAction, ActionBucket> = { deny: new ActionBucket(), ask: new ActionBucket(), allow: new ActionBucket() };

  constructor(rules: readonly CompiledRule[]) {
    this.rules = rules;
    for (const compiled of rules) this.#buckets[compiled.rule.action].add(compiled);
    for (const bucket of Object.values(this.#buckets)) bucket.seal();
  }

  get size(): number {
    return this.rules.length;
  }

  find(id: string | undefined): CompiledRule | undefined {
    return id === undefined ? undefined : this.rules.find((compiled) => compiled.id === id);
  }

  async strongest(target: PolicyTarget): Promise<CompiledRule | undefined> {
    for (const action of ['deny', 'ask', 'allow'] as const) {
      const found = await this.#buckets[action].match(target);
      if (found) return found;
    }
    return undefined;
  }
}

/** Validates and compiles rules; ids default to `${idPrefix}#<index>`. */
export function compileRules(rules: readonly PolicyRule[], idPrefix = 'rule'): RuleSet {
  return new RuleSet(
    rules.map((rule, index) => {
      const parsed = policyRuleSchema.safeParse(rule);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ConfigError(`Policy rule ${rule?.id ?? index}: ${issue.path.join('.') || 'rule'} ${issue.message}.`);
      }
      return {
        rule,
        id: rule.id ?? `${idPrefix}#${index}`,
        order: index,
        tool: rule.tool === undefined ? undefined : globToRegExp(rule.tool),
        connector: rule.connector === undefined ? undefined : globToRegExp(rule.connector),
      };
    }),
  );
}
