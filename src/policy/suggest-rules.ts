import { canonicalJson } from '../run/digest.js';
import type { JsonValue } from '../run/json-value.js';
import type { DecisionSource, Quorum } from '../run/types.js';
import { ValueGlob } from './grants/value-glob.js';

/** A decided request as suggestions read it: who asked, what for, how it ended, and the arguments where known. */
export interface DecidedCall {
  readonly agentName: string;
  readonly toolName: string;
  readonly decision: 'approved' | 'denied';
  readonly source: DecisionSource;
  readonly by?: string;
  /** The approver list the request named. */
  readonly approvers?: readonly string[];
  /** Set when several people had to approve. */
  readonly quorum?: Quorum;
  /** The call's arguments; left out when they are not known (then no bound is drawn from the tool's calls). */
  readonly args?: unknown;
  /** Approved with changed arguments: not what was asked, so it counts against a rule as a refusal does. */
  readonly edited?: boolean;
}

/** Options of `suggestRules`. */
export interface SuggestRulesOptions {
  /** Approvals by people needed before a rule is proposed; 5 by default. */
  readonly minApprovals?: number;
  /** False for a tool that must never be allowed without a person (`defineTool({ grantable: false })`). */
  readonly grantable?: (agentName: string, toolName: string) => boolean;
}

/** An allow rule proposed from what people approved, with the evidence, for a person to confirm. */
export interface RuleSuggestion {
  readonly agent: string;
  readonly tool: string;
  /** How many times people approved it in the window. */
  readonly approvals: number;
  /** Who approved it, sorted. */
  readonly approvedBy: readonly string[];
  /** Argument bounds drawn from what was approved: a pinned value or a glob per argument; absent when none could be drawn. */
  readonly argsMatch?: Readonly<Record<string, JsonValue>>;
  readonly reason: string;
}

/** The shortest prefix that still says something: a glob of one character or `/` alone covers nearly everything. */
const MIN_PREFIX = 2;

function commonPrefix(values: readonly string[]): string {
  let prefix = values[0] ?? '';
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** A glob over the shared prefix of `values` (a directory first), when one matches them all; undefined otherwise. */
function globOf(values: readonly string[]): string | undefined {
  const prefix = commonPrefix(values);
  // A wildcard in the prefix would be read as one, not as itself.
  if (/[*?]/.test(prefix)) return undefined;
  const directory = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  const candidates = [`${directory}**`, `${prefix}*`].filter((glob) => glob.length - 2 >= MIN_PREFIX);
  return candidates.find((glob) => values.every((value) => new ValueGlob(glob).test(value)));
}

/** Per top-level argument: the value every call had, else a glob over string values, else nothing. */
function boundsOf(args: readonly unknown[]): Record<string, JsonValue> | undefined {
  const objects = args.filter(
    (value): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value),
  );
  if (objects.length === 0 || objects.length < args.length) return undefined;
  const bounds: Record<string, JsonValue> = {};
  for (const key of Object.keys(objects[0]!)) {
    // A dotted path reads a nested value: a key with a dot in it could not be named.
    if (key.includes('.') || !objects.every((value) => Object.hasOwn(value, key))) continue;
    const values = objects.map((value) => value[key]);
    const first = canonicalJson(values[0]);
    if (values.every((value) => canonicalJson(value) === first)) bounds[key] = JSON.parse(first) as JsonValue;
    else if (values.every((value) => typeof value === 'string')) {
      const glob = globOf(values as string[]);
      if (glob !== undefined) bounds[key] = glob;
    }
  }
  return Object.keys(bounds).length === 0 ? undefined : bounds;
}

/**
 * Allow rules worth proposing: one per agent and tool that people approved at least `minApprovals` times and that was
 * never denied, edited, dismissed or expired among `decisions`. Never for a tool that is not grantable, nor for one whose
 * requests named approvers or needed a quorum (a rule would loosen who decides). Bounds come from the approved calls'
 * arguments; where none could be drawn, the reason says the rule would allow every call of the tool.
 *
 * @example
 * const suggestions = suggestRules(decided, { minApprovals: 5 });
 * // [{ agent: 'ops', tool: 'read_log', approvals: 6, approvedBy: ['alice'], argsMatch: { path: '/var/log/**' }, reason: '...' }]
 */
export function suggestRules(
  decisions: readonly DecidedCall[],
  options: SuggestRulesOptions = {},
): readonly RuleSuggestion[] {
  const minApprovals = options.minApprovals ?? 5;
  const groups = new Map<string, DecidedCall[]>();
  for (const call of decisions) {
    const key = JSON.stringify([call.agentName, call.toolName]);
    groups.set(key, [...(groups.get(key) ?? []), call]);
  }
  const suggestions: RuleSuggestion[] = [];
  for (const calls of groups.values()) {
    const { agentName, toolName } = calls[0]!;
    // A rule names its tool by a glob: a name with a wildcard in it would name more tools than the one approved.
    if (/[*?]/.test(toolName) || options.grantable?.(agentName, toolName) === false) continue;
    const guarded = calls.some((call) => call.quorum !== undefined || (call.approvers?.length ?? 0) > 0);
    const refused = calls.some(
      (call) =>
        call.decision === 'denied' || call.edited === true || call.source === 'expiry' || call.source === 'dismissed',
    );
    const approved = calls.filter((call) => call.decision === 'approved' && call.source === 'human');
    if (guarded || refused || approved.length < minApprovals) continue;
    const known = approved.filter((call) => call.args !== undefined).map((call) => call.args);
    const argsMatch = known.length === approved.length ? boundsOf(known) : undefined;
    const approvedBy = [...new Set(approved.flatMap((call) => (call.by === undefined ? [] : [call.by])))].sort();
    suggestions.push({
      agent: agentName,
      tool: toolName,
      approvals: approved.length,
      approvedBy,
      ...(argsMatch === undefined ? {} : { argsMatch }),
      reason:
        argsMatch === undefined
          ? `approved ${approved.length} times and never refused; no argument could be bounded, so it would allow every call of ${toolName}`
          : `approved ${approved.length} times and never refused, within the arguments approved`,
    });
  }
  return suggestions;
}
