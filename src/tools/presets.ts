import type { PolicyRule } from '../policy/policy.js';

const DANGEROUS_WORDS = ['execute', 'command', 'delete', 'remove', 'write', 'shell', 'drop', 'send'];
const DANGEROUS = new RegExp(DANGEROUS_WORDS.join('|'), 'i');

/**
 * Ready-made rule lists. Each is plain data you can read, extend or copy.
 *
 * @example
 * const agent = createAgent({
 *   name: 'ops', model, tools,
 *   policy: { rules: [...presets.readOnlyAutoApprove(), ...presets.dangerousByName()] },
 * });
 */
export const presets = {
  /**
   * Allows tools whose names start with read, list, get or search, and tools
   * whose definition declares them `readOnly` (an MCP tool's `readOnlyHint`
   * counts only from a server connected with `trustAnnotations: true`).
   */
  readOnlyAutoApprove(): PolicyRule[] {
    const byName = ['read', 'list', 'get', 'search'].map((verb) => ({
      id: `preset:read-only:${verb}`,
      tool: `${verb}*`,
      action: 'allow' as const,
      reason: `read-only tool (name starts with "${verb}")`,
    }));
    const declared: PolicyRule = {
      id: 'preset:read-only:declared',
      action: 'allow',
      reason: 'read-only tool (its definition says it has no side effects)',
      when: (_args, ctx) => ctx.tool.readOnly === true,
    };
    return [...byName, declared];
  },
  /** Asks for tools whose name or description mentions execute, command, delete, remove, write, shell, drop or send. */
  dangerousByName(): PolicyRule[] {
    return [
      {
        id: 'preset:dangerous-by-name',
        action: 'ask',
        reason: `the tool's name or description mentions one of: ${DANGEROUS_WORDS.join(', ')}`,
        when: (_args, ctx) => DANGEROUS.test(ctx.tool.name) || DANGEROUS.test(ctx.tool.description),
      },
    ];
  },
};
