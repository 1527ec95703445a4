// What the model adapters share about files: the file parts of a message (a tool's message carries them before its
// tool-result part, from `toolResult`), a file as a data URL, and the words that stand for a file a provider cannot
// take where it would go.
import type { Message, MessagePart } from '../../run/types.js';

export type FilePart = Extract<MessagePart, { type: 'file' }>;

/** The file parts of a message, in order. */
export function filesOf(message: Message): FilePart[] {
  return (message.parts ?? []).filter((part): part is FilePart => part.type === 'file');
}

/** A file's base64 data as a `data:` URL. */
export function dataUrl(part: { readonly mediaType: string; readonly data?: string }): string {
  return `data:${part.mediaType};base64,${part.data ?? ''}`;
}

/** A file the provider cannot take where it would go, named so the model knows one was there: `[file: application/pdf report.pdf]`. */
export function fileLabel(part: FilePart): string {
  const name = part.filename ?? part.url;
  return `[file: ${part.mediaType}${name === undefined ? '' : ` ${name}`}]`;
}
