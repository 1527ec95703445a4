import { z } from 'zod';
import { functionSchema } from '../run/function-schema.js';
import { Glob } from './glob.js';
import type { ToolContext } from '../tools/define-tool.js';
import type { Approvers } from './approvers.js';
import { escalateSchema, remindAfterMsSchema } from './nudge-plan.js';
import type { DecisionKind, EscalationStep, ToolAnnotations } from '../run/types.js';
import { decisionsSchema } from '../run/decision-kinds.js';
import { optionsObject, parseOptions } from '../options.js';
import { type QuorumOptions, quorumOptionsSchema } from './quorum.js';

export type PolicyAction = 'allow' | 'ask' | 'deny';

/** What a rule's `when` sees besides the arguments: the call's context and the tool itself. */
export interface PolicyContext extends ToolContext {
  readonly tool: {
    readonly name: string;
    readonly description: string;
    readonly connector?: string;
    /** The tool's definition declares it free of side effects. */
    readonly readOnly?: boolean;
    readonly annotations?: ToolAnnotations;
  };
}

/**
 * One policy rule. Globs (`*` matches any run of characters, `?` one) match
 * tool and connector names; a rule with neither matches every tool.
 */
export interface PolicyRule {
  readonly id?: string;
  readonly tool?: string;
  readonly connector?: string;
  // biome-ignore lint/suspicious/noExplicitAny: a rule's tool glob can match tools of any input type
  readonly when?: (args: any, ctx: PolicyContext) => boolean | Promise<boolean>;
  readonly action: PolicyAction;
  readonly reason?: string;
  readonly approvers?: Approvers;
  /** For an `ask` rule: re-announce its requests every this many ms while they wait; wins over the tool's. */
  readonly remindAfterMs?: number;
  /** For an `ask` rule: who is brought in, and when, while its requests wait; wins over the tool's. */
  readonly escalate?: readonly EscalationStep[];
  /** Several people must approve the calls this rule asks about; wins over the tool's `approvals`. */
  readonly approvals?: QuorumOptions;
  /** For an `ask` rule: the decisions a person may make on its calls, within the tool's own (a rule only tightens). */
  readonly decisions?: readonly DecisionKind[];
}

export interface PolicyConfig {
  readonly rules?: readonly PolicyRule[];
  /** What to do when neither a rule nor the tool decides. `'ask'` unless set. */
  readonly default?: PolicyAction;
}

const policyRuleSchema = optionsObject({
  id: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  connector: z.string().min(1).optional(),
  when: functionSchema('must be a function (args, ctx) => boolean').optional(),
  action: z.enum(['allow', 'ask', 'deny'], { error: "must be 'allow', 'ask' or 'deny'" }),
  reason: z.string().optional(),
  approvers: z.union([z.array(z.string()), functionSchema()]).optional(),
  remindAfterMs: remindAfterMsSchema.optional(),
  escalate: escalateSchema.optional(),
  approvals: quorumOptionsSchema.optional(),
  decisions: decisionsSchema.optional(),
});

/** A rule with its globs compiled, once. */
export interface CompiledRule {
  readonly rule: PolicyRule;
  readonly id: string;
  /** Position in the rule list: among matching rules of one action the first listed is reported. */
  readonly order: number;
  readonly tool: Glob | undefined;
  readonly connector: Glob | undefined;
}

/** The call a rule set is asked about. */
export interface PolicyTarget {
  readonly toolName: string;
  readonly connector: string | undefined;
  readonly args: unknown;
  readonly ctx: PolicyContext;
}

/**
 * Rules indexed by the literal start of their tool glob, or by its literal
 * end when it starts with a wildcard, so a call only visits the rules whose
 * glob could match its name. Rules without a tool glob, or whose glob has
 * neither (`*`), are visited for every call.
 */
class GlobIndex {
  readonly #byPrefix = new Map<string, CompiledRule[]>();
  readonly #bySuffix = new Map<string, CompiledRule[]>();
  readonly #always: CompiledRule[] = [];
  #prefixLengths: number[] = [];
  #suffixLengths: number[] = [];

  add(compiled: CompiledRule): void {
    const glob = compiled.tool;
    if (glob?.prefix) push(this.#byPrefix, glob.prefix, compiled);
    else if (glob?.suffix) push(this.#bySuffix, glob.suffix, compiled);
    else this.#always.push(compiled);
  }

  seal(): void {
    this.#prefixLengths = lengthsOf(this.#byPrefix);
    this.#suffixLengths = lengthsOf(this.#bySuffix);
  }

  /** The rules whose glob may match `name`, in list order. */
  candidates(name: string): CompiledRule[] {
    const found = [...this.#always];
    for (const length of this.#prefixLengths) {
      if (length > name.length) break;
      const list = this.#byPrefix.get(name.slice(0, length));
      if (list) found.push(...list);
    }
    for (const length of this.#suffixLengths) {
      if (length > name.length) break;
      const list = this.#bySuffix.get(name.slice(name.length - length));
      if (list) found.push(...list);
    }
    return found.length > 1 ? found.sort((a, b) => a.order - b.order) : found;
  }
}

function push(map: Map<string, CompiledRule[]>, key: string, compiled: CompiledRule): void {
  const list = map.get(key);
  if (list) list.push(compiled);
  else map.set(key, [compiled]);
}

function lengthsOf(map: ReadonlyMap<string, unknown>): number[] {
  return [...new Set([...map.keys()].map((key) => key.length))].sort((a, b) => a - b);
}

/**
 * The rules of one action, arranged so a lookup does not walk them one by
 * one: plain rules naming one tool exactly in a map, every other rule in a
 * glob index that hands out only the rules that could match.
 */
class ActionBucket {
  readonly #exact = new Map<string, CompiledRule>();
  readonly #index = new GlobIndex();

  add(compiled: CompiledRule): void {
    const { rule, tool } = compiled;
    if (rule.when === undefined && rule.connector === undefined && tool?.isLiteral) {
      if (!this.#exact.has(tool.source)) this.#exact.set(tool.source, compiled);
    } else this.#index.add(compiled);
  }

  seal(): void {
    this.#index.seal();
  }

  async match(target: PolicyTarget): Promise<CompiledRule | undefined> {
    let best = this.#exact.get(target.toolName);
    for (const compiled of this.#index.candidates(target.toolName)) {
      if (best && compiled.order > best.order) break;
      if (compiled.tool && !compiled.tool.test(target.toolName)) continue;
      if (compiled.connector && (target.connector === undefined || !compiled.connector.test(target.connector)))
        continue;
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
  readonly #buckets: Record<PolicyAction, ActionBucket> = {
    deny: new ActionBucket(),
    ask: new ActionBucket(),
    allow: new ActionBucket(),
  };

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
      parseOptions(policyRuleSchema, rule, `Policy rule ${rule?.id ?? index}`, { subject: 'rule' });
      return {
        rule,
        id: rule.id ?? `${idPrefix}#${index}`,
        order: index,
        tool: rule.tool === undefined ? undefined : new Glob(rule.tool),
        connector: rule.connector === undefined ? undefined : new Glob(rule.connector),
      };
    }),
  );
}
