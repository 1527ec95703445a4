// What the gateway answers its MCP client for a gateway run: the upstream's result rebuilt from the run's tool message
// (text, files, structured output), a denial or an expiry with who and why, phrased so a model does not retry, or
// "pending" with the approval id when the person has not decided yet.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEntry, Message, MessagePart, AgentSnapshot } from '../index.js';
import { GATEWAY_CALL_ID } from './gateway-call-id.js';

type ContentBlock = CallToolResult['content'][number];

const DO_NOT_RETRY =
  'The call was not made. Do not retry it or work around it; continue without it, or tell the user what could not be done.';

/** An error result the client's model reads. */
export function errorAnswer(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The answer for a run that has not ended: the approval it waits for, or that it is still running. */
export function pendingAnswer(snapshot: AgentSnapshot): CallToolResult {
  const request = snapshot.pendingApprovals[0];
  if (request === undefined)
    return errorAnswer('The call is still running. Call this tool again with the same arguments to get its result.');
  return errorAnswer(
    `Approval pending (approval id ${request.approvalId}); a person has been asked. Call this tool again with the same arguments to get the decision.`,
  );
}

/** The answer for a run that ended. */
export function finalAnswer(snapshot: AgentSnapshot): CallToolResult {
  const message = snapshot.messages.find((item) => item.role === 'tool' && item.toolCallId === GATEWAY_CALL_ID);
  if (message === undefined) {
    if (snapshot.status === 'cancelled')
      return errorAnswer(
        `The call was cancelled before it ran: ${snapshot.error?.message ?? 'cancelled'}. ${DO_NOT_RETRY}`,
      );
    return errorAnswer(
      `The gateway could not run the call: ${snapshot.error?.message ?? `the run ended ${snapshot.status}`}.`,
    );
  }
  const outcome = message.parts?.find((part) => part.type === 'tool-result');
  if (outcome?.outcome === 'denied')
    return errorAnswer(denialText(snapshot.audit.findLast((entry) => entry.toolCallId === GATEWAY_CALL_ID)));
  if (outcome?.outcome === 'error') return errorAnswer(errorText(message.content));
  return resultOf(message, outcome?.output);
}

function denialText(entry: AuditEntry | undefined): string {
  const reason = entry?.reason ? `: ${entry.reason}` : '';
  switch (entry?.source) {
    case 'expiry':
      return `Nobody approved this call before its approval expired${reason}. ${DO_NOT_RETRY}`;
    case 'dismissed':
      return `Nobody decided on this call: ${entry.by ?? 'the reviewer'} closed the request without approving or denying it${reason}. ${DO_NOT_RETRY}`;
    case 'human':
    case 'memory':
      return `Denied by ${entry.by ?? 'a person reviewing it'}${reason}. ${DO_NOT_RETRY}`;
    default:
      return `Refused by the approval policy${entry?.ruleId ? ` (rule ${entry.ruleId})` : ''}${reason}. ${DO_NOT_RETRY}`;
  }
}

/** The text of a failed call: the error the tool message carries (`{ status: 'error', error }`), else its text. */
function errorText(content: string): string {
  try {
    const parsed = JSON.parse(content) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not the core's error shape: the text as it is.
  }
  return content;
}

function resultOf(message: Message, output: unknown): CallToolResult {
  const files = (message.parts ?? []).filter(
    (part): part is Extract<MessagePart, { type: 'file' }> => part.type === 'file',
  );
  const content: ContentBlock[] =
    message.content !== '' || files.length === 0 ? [{ type: 'text', text: message.content }] : [];
  content.push(...files.map(fileBlock));
  const structured =
    typeof output === 'object' && output !== null && !Array.isArray(output)
      ? { structuredContent: output as Record<string, unknown> }
      : {};
  return { content, ...structured };
}

function fileBlock(file: Extract<MessagePart, { type: 'file' }>): ContentBlock {
  const data = file.data ?? '';
  if (file.mediaType.startsWith('image/')) return { type: 'image', data, mimeType: file.mediaType };
  if (file.mediaType.startsWith('audio/')) return { type: 'audio', data, mimeType: file.mediaType };
  const uri = file.url ?? `file:///${file.filename ?? 'file'}`;
  return { type: 'resource', resource: { uri, mimeType: file.mediaType, blob: data } };
}
