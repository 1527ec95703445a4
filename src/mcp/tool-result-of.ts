import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type RichToolResult, type ToolResultFile, toolResult, type JsonValue } from '../index.js';

type ContentBlock = CallToolResult['content'][number];

/**
 * What a countersign tool returns for one MCP `CallToolResult`: its text
 * (text blocks, embedded text resources, and one line per resource link),
 * images, audio and binary resources as files, and `structuredContent` as
 * the structured output. A result with `isError: true` throws an `Error`
 * with its text, which the model reads as `<tool> failed: <text>`.
 *
 * @example
 * const result = await connection.callTool('weather', { city: 'Oslo' });
 * return toolResultOf(result); // inside a tool's execute
 */
export function toolResultOf(result: CallToolResult): RichToolResult {
  const lines: string[] = [];
  const files: ToolResultFile[] = [];
  for (const block of result.content ?? []) {
    const line = textOf(block);
    if (line !== undefined) lines.push(line);
    const file = fileOf(block);
    if (file !== undefined) files.push(file);
  }
  // A legacy (2024-10-07) result carries `toolResult` instead of content.
  if (result.content === undefined && 'toolResult' in result) lines.push(JSON.stringify(result['toolResult']));
  const structured = result.structuredContent as JsonValue | undefined;
  // The spec asks servers to repeat structured content as text; for one that does not, the model still reads it.
  if (lines.length === 0 && structured !== undefined) lines.push(JSON.stringify(structured));
  const text = lines.join('\n');
  if (result.isError === true) throw new Error(text || 'the server reported an error without a message');
  return toolResult({
    text,
    ...(files.length > 0 ? { files } : {}),
    ...(structured === undefined ? {} : { structured }),
  });
}

function textOf(block: ContentBlock): string | undefined {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : undefined;
    case 'resource_link':
      return `Resource ${block.name}: ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ''}`;
    default:
      return undefined;
  }
}

function fileOf(block: ContentBlock): ToolResultFile | undefined {
  switch (block.type) {
    case 'image':
    case 'audio':
      return { mediaType: block.mimeType, data: block.data };
    case 'resource':
      if (!('blob' in block.resource)) return undefined;
      return {
        mediaType: block.resource.mimeType ?? 'application/octet-stream',
        data: block.resource.blob,
        filename: filenameOf(block.resource.uri),
      };
    default:
      return undefined;
  }
}

function filenameOf(uri: string): string {
  return uri.slice(uri.lastIndexOf('/') + 1) || uri;
}
