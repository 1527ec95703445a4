// What differs between the AI SDK's language model specifications v2 and v3, and nothing else: how usage and
// the finish reason are reported, and how a refused call is told to the model (v2 has no execution-denied output).
import type { LanguageModelV2FinishReason, LanguageModelV2Usage, LanguageModelV3FinishReason, LanguageModelV3ToolResultOutput, LanguageModelV3Usage } from '@ai-sdk/provider';
import type { FinishReason, Usage } from '../../machine/types.js';

export type SpecVersion = 'v2' | 'v3';

export const specVersions: readonly SpecVersion[] = ['v2', 'v3'];

export interface SpecDialect {
  usage(usage: unknown): Usage;
  finishReason(reason: unknown): FinishReason;
  denied(reason: string): LanguageModelV3ToolResultOutput;
}

/** `usage` without the counts the provider left out. */
function counted(usage: Record<keyof Usage, number | undefined>): Usage {
  return Object.fromEntries(Object.entries(usage).filter(([, count]) => typeof count === 'number')) as Usage;
}

const finishReasons: ReadonlySet<string> = new Set<FinishReason>(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']);
const knownReason = (reason: string | undefined): FinishReason => (reason !== undefined && finishReasons.has(reason) ? (reason as FinishReason) : 'other');

export const dialects: Record<SpecVersion, SpecDialect> = {
  v2: {
    usage: (raw) => {
      const usage = raw as LanguageModelV2Usage;
      return counted({ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, reasoningTokens: usage.reasoningTokens, cachedInputTokens: usage.cachedInputTokens });
    },
    finishReason: (reason) => knownReason(reason as LanguageModelV2FinishReason),
    denied: (reason) => ({ type: 'error-text', value: reason }),
  },
  v3: {
    usage: (raw) => {
      const usage = raw as LanguageModelV3Usage;
      return counted({
        inputTokens: usage.inputTokens.total,
        outputTokens: usage.outputTokens.total,
        reasoningTokens: usage.outputTokens.reasoning,
        cachedInputTokens: usage.inputTokens.cacheRead,
      });
    },
    finishReason: (reason) => knownReason((reason as LanguageModelV3FinishReason).unified),
    denied: (reason) => ({ type: 'execution-denied', reason }),
  },
};
