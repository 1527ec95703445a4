// requireApproval, per server, turned into each tool's needsApproval; and the check, when the connection is made,
// that every tool it names is one the connection offers (a typo would otherwise leave a tool ungated in silence).
import type { Tool as McpToolListing } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../errors.js';
import type { ToolDefinition } from '../index.js';
import type { McpArguments } from './input-schema.js';
import type { RequireApproval } from './mcp-options.js';

/** The `needsApproval` of one server tool under `setting`; none (the agent's policy decides) where the setting says nothing. */
export function approvalOf(
  setting: RequireApproval | undefined,
  listing: McpToolListing,
): Pick<ToolDefinition<McpArguments>, 'needsApproval'> {
  if (setting === undefined) return {};
  if (typeof setting === 'boolean') return { needsApproval: setting };
  if (typeof setting === 'function') return { needsApproval: (input) => setting(listing, input) };
  if (isList(setting)) return { needsApproval: setting.includes(listing.name) };
  if (setting.always?.includes(listing.name)) return { needsApproval: true };
  if (setting.never?.includes(listing.name)) return { needsApproval: false };
  return {};
}

/**
 * Refuses, naming the tool, a `toolNames` entry the server does not offer and
 * a `requireApproval` entry that is not among the tools the connection offers.
 */
export function checkNamedTools(
  where: string,
  options: {
    readonly toolNames?: readonly string[] | undefined;
    readonly requireApproval?: RequireApproval | undefined;
  },
  offered: readonly string[],
): void {
  const known = new Set(offered);
  const list = (names: Iterable<string>) => [...names].join(', ') || '(none)';
  for (const name of options.toolNames ?? []) {
    if (!known.has(name))
      throw new ConfigError(
        `${where}: toolNames names ${name}, which the server does not offer (it offers: ${list(known)}).`,
      );
  }
  const exposed = options.toolNames === undefined ? known : new Set(options.toolNames);
  const setting = options.requireApproval;
  const named =
    setting === undefined || typeof setting !== 'object'
      ? []
      : isList(setting)
        ? setting
        : [...(setting.always ?? []), ...(setting.never ?? [])];
  for (const name of named) {
    if (exposed.has(name)) continue;
    throw new ConfigError(
      known.has(name)
        ? `${where}: requireApproval names ${name}, which is not in toolNames; add it to toolNames or remove it from requireApproval.`
        : `${where}: requireApproval names ${name}, which the server does not offer (it offers: ${list(known)}).`,
    );
  }
  if (setting !== undefined && typeof setting === 'object' && !isList(setting)) {
    const both = (setting.always ?? []).find((name) => setting.never?.includes(name));
    if (both !== undefined)
      throw new ConfigError(`${where}: requireApproval lists ${both} under both always and never; keep it in one.`);
  }
}

function isList(setting: RequireApproval): setting is readonly string[] {
  return Array.isArray(setting);
}
