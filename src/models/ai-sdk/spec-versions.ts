// What differs between the AI SDK's language model specifications v2 and v3, and nothing else: how usage and
// the finish reason are reported, how a refused call is told to the model (v2 has no execution-denied output), and
// how a file a tool returned goes in its output (v2 has base64 `media` only, so a linked file is named in text).
import type {
  LanguageModelV2FinishReason,
  LanguageModelV2Usage,
  LanguageModelV3FinishReason,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { FinishReason, Usage } from '../../index.js';
import { type FilePart, fileLabel } from '../../kit/index.js';

/** One item of a tool result's `content` output. */
export type ToolOutputItem = Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>['value'][number];

export type SpecVersion = 'v2' | 'v3';

export const specVersions: readonly SpecVersion[] = ['v2', 'v3'];

export interface SpecDialect {
  usage(usage: unknown): Usage;
  finishReason(reason: unknown): FinishReason;
  denied(reason: string): LanguageModelV3ToolResultOutput;
  file(part: FilePart): ToolOutputItem;
}

/** `usage` without the counts the provider left out. */
function counted(usage: Record<keyof Usage, number | undefined>): Usage {
  return Object.fromEntries(Object.entries(usage).filter(([, count]) => typeof count === 'number')) as Usage;
}

const finishReasons: ReadonlySet<string> = new Set<FinishReason>([
  'stop',
  'length',
  'tool-calls',
  'content-filter',
  'error',
  'other',
]);
const knownReason = (reason: string | undefined): FinishReason =>
  reason !== undefined && finishReasons.has(reason) ? (reason as FinishReason) : 'other';

export const dialects: Record<SpecVersion, SpecDialect> = {
  v2: {
    usage: (raw) => {
      const usage = raw as LanguageModelV2Usage;
      return counted({
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        reasoningTokens: usage.reasoningTokens,
        cachedInputTokens: usage.cachedInputTokens,
      });
    },
    finishReason: (reason) => knownReason(reason as LanguageModelV2FinishReason),
    denied: (reason) => ({ type: 'error-text', value: reason }),
    // v2's own item is `media`; typed as v3's items, the v3 type this prompt is built as has no such name.
    file: (part) =>
      part.data === undefined
        ? { type: 'text', text: fileLabel(part) }
        : ({ type: 'media', data: part.data, mediaType: part.mediaType } as unknown as ToolOutputItem),
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
    file: (part) => {
      const image = part.mediaType.startsWith('image/');
      if (part.url !== undefined)
        return image
          ? { type: 'image-url', url: part.url }
          : { type: 'file-url', url: part.url, mediaType: part.mediaType };
      const data = part.data ?? '';
      if (image) return { type: 'image-data', data, mediaType: part.mediaType };
      return {
        type: 'file-data',
        data,
        mediaType: part.mediaType,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
      };
    },
  },
};
