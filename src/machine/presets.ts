import type { PolicyRule } from './policy.js';

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
  /** Allows tools whose names start with read, list, get or search. */
  readOnlyAutoApprove(): PolicyRule[] {
    return ['read', 'list', 'get', 'search'].map((verb) => ({
      id: `preset:read-only:${verb}`,
      tool: `${verb}*`,
      action: 'allow' as const,
      reason: `read-only tool (name starts with "${verb}")`,
    }));
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
