import type { Message } from '../../index.js';
import { dataUrl, type FilePart, fileLabel, filesOf } from '../../kit/index.js';
import { argumentsText } from './tool-arguments.js';

type Wire = Record<string, unknown>;

function toWire(message: Message): Wire {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      content: message.content || null,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: argumentsText(call.args) },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function filePart(part: FilePart): Wire {
  if (part.mediaType.startsWith('image/')) return { type: 'image_url', image_url: { url: part.url ?? dataUrl(part) } };
  return { type: 'text', text: fileLabel(part) };
}

/** The user message carrying the files of a run of tool messages, each call's files after a line naming the call. */
function filesMessage(tools: readonly Message[]): Wire | undefined {
  const content = tools.flatMap((message) => {
    const files = filesOf(message);
    return files.length === 0
      ? []
      : [{ type: 'text', text: `Files the tool call ${message.toolCallId ?? ''} returned:` }, ...files.map(filePart)];
  });
  return content.length === 0 ? undefined : { role: 'user', content };
}

/** `messages` as the Chat Completions API takes them. */
export function toChatMessages(messages: readonly Message[]): Wire[] {
  const wire: Wire[] = [];
  let run: Message[] = [];
  const endRun = () => {
    const files = filesMessage(run);
    if (files) wire.push(files);
    run = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') endRun();
    else run.push(message);
    wire.push(toWire(message));
  }
  endRun();
  return wire;
}
