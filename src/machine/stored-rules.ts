import { globToRegExp, type CompiledRule } from './policy.js';
import type { StoredRule } from './rule-store.js';

const globCache = new Map<string, RegExp>();

function cachedGlob(glob: string | undefined): RegExp | undefined {
  if (glob === undefined) return undefined;
  let compiled = globCache.get(glob);
  if (!compiled) {
    compiled = globToRegExp(glob);
    if (globCache.size > 10_000) globCache.clear();
    globCache.set(glob, compiled);
  }
  return compiled;
}

/** The enabled stored rules that apply to `agentName`, with each glob compiled once per process. */
export function compileStoredRules(rules: readonly StoredRule[], agentName: string): CompiledRule[] {
  const compiled: CompiledRule[] = [];
  for (const stored of rules) {
    if (!stored.enabled || (stored.agent !== undefined && stored.agent !== agentName)) continue;
    compiled.push({
      rule: stored,
      id: stored.id,
      tool: cachedGlob(stored.tool),
      connector: cachedGlob(stored.connector),
    });
  }
  return compiled;
}
