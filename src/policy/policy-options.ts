// The `policy` and `ruleStore` options, checked the same way wherever an agent is made (createAgent, the MCP gateway).
import { z } from 'zod';
import { optionsObject } from '../options.js';
import type { RuleStore } from '../ports/rule-store.js';

/**
 * How an agent's options (and the MCP gateway's) are checked for `policy` and `ruleStore`: the rules themselves are
 * checked when compiled, with messages that name the rule.
 */
export const policyOptionsShape = {
  policy: optionsObject({
    rules: z.array(z.unknown()).optional(),
    default: z.enum(['allow', 'ask', 'deny']).optional(),
  }).optional(),
  ruleStore: z
    .custom<RuleStore>(
      (value) => typeof (value as RuleStore | undefined)?.list === 'function',
      'must implement RuleStore',
    )
    .optional(),
};
