import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { PolicyRule } from '../policy/policy.js';
import { optionsObject } from '../options.js';
import { newRuleSchema } from '../stores/memory/memory-rule-store.js';
import { UsageError } from '../errors.js';

// The stored rule's fields (one schema for both), with the file's own id; which agent a rule is for and whether it
// is enabled or in shadow mode belong to a rule store, not to the rules a command is run with; nor are argument bounds
// (a stored rule's argsMatch) read from a file of policy rules.
const ruleSchema = optionsObject({
  id: z.string().min(1).optional(),
  ...newRuleSchema.omit({ agent: true, enabled: true, shadow: true, argsMatch: true }).shape,
});
const rulesSchema = z.array(ruleSchema, { error: 'must hold a JSON array of rules' });

const SHAPE =
  'each rule is { "id"?, "tool"?, "connector"?, "action": "allow" | "ask" | "deny", "reason"?, "approvers"?: [ids], "approvals"?: { "required": n, "from"?: [ids], ... }, "decisions"?: ["approve" | "edit" | "deny" | "run" | "session" | "agent"], "remindAfterMs"?: ms, "escalate"?: [{ "afterMs": ms, "to": [ids] | { "channel": name } }] }';

/** The policy rules of a JSON file (`--rules FILE`); a problem names the file, the rule's index and the fix. */
export async function readRulesFile(path: string): Promise<PolicyRule[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--rules ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the path of a JSON file`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--rules ${path} is not JSON (${(error as Error).message}); ${SHAPE}`);
  }
  const parsed = rulesSchema.safeParse(json);
  if (parsed.success) return parsed.data as PolicyRule[];
  const issue = parsed.error.issues[0]!;
  const [index, ...field] = issue.path;
  const where =
    index === undefined ? 'the file' : `rule ${String(index)}${field.length > 0 ? ` ${field.join('.')}` : ''}`;
  throw new UsageError(`--rules ${path}: ${where} ${issue.message}; ${SHAPE}`);
}
