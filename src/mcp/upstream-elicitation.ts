// An upstream server's own question to countersign's MCP client (its `elicitation/create`) answered by a person on
// countersign's surfaces: a form becomes a question with a typed answer (`runtime.requestInput`), a URL to open
// becomes an approval that shows it (`runtime.requestApproval`), each routed through the runtime's rules, channels,
// quorum and audit as any request, asked by `mcp-server:<name>`. The person's answer goes back as `accept` with the
// content; a denial as `decline`; an expiry, a withdrawal or the server's own cancel as `cancel`.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  ClientNotification,
  ClientRequest,
  ElicitRequest,
  ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandle, RequestState, Runtime } from '../index.js';
import { answerFormOf } from './elicitation-form.js';
import type { McpElicitationOptions } from './mcp-options.js';

/** The name rules match an upstream's questions by: `elicitation.<server>`. */
export const elicitationToolName = (server: string) => `elicitation.${server}`;

const DEFAULT_EXPIRES_IN_MS = 600_000;

/** The handler of `elicitation/create` for the server named `server`. */
export function elicitationHandler(server: string, options: McpElicitationOptions) {
  return async (
    request: ElicitRequest,
    extra: RequestHandlerExtra<ClientRequest, ClientNotification>,
  ): Promise<ElicitResult> => {
    const runtime: Runtime = typeof options.runtime === 'function' ? options.runtime() : options.runtime;
    const terms = {
      tool: elicitationToolName(server),
      requestedBy: `mcp-server:${server}`,
      expiresInMs: options.expiresInMs ?? DEFAULT_EXPIRES_IN_MS,
      ...(options.approvers === undefined ? {} : { approvers: [...options.approvers] }),
    };
    const { params } = request;
    if (params.mode === 'url') {
      const handle = await runtime.requestApproval({
        ...terms,
        args: { server, url: params.url },
        description: `MCP server ${server} asks a person to open ${params.url}: ${params.message}`,
        reason: 'Approve once you have opened the page and done what it asks; deny to refuse.',
      });
      const state = await settled(handle, extra.signal);
      return state.status === 'approved' ? { action: 'accept' } : refusal(state);
    }
    const shaped = answerFormOf(params.requestedSchema);
    // A form no surface can ask for is declined, as a client that cannot show it would.
    if ('unsupported' in shaped) return { action: 'decline' };
    const handle = await runtime.requestInput({
      ...terms,
      question: `MCP server ${server} asks: ${params.message}`,
      answer: shaped.form,
      args: { server },
    });
    const state = await settled(handle, extra.signal);
    if (state.status !== 'approved') return refusal(state);
    return { action: 'accept', content: (state.answer ?? {}) as NonNullable<ElicitResult['content']> };
  };
}

/** The request once decided, or withdrawn when the server cancels its question first. */
async function settled<A>(handle: RequestHandle<A>, signal: AbortSignal): Promise<RequestState<A>> {
  const state = await handle.wait({ signal });
  return state.status === 'pending' ? handle.cancel('the MCP server withdrew its question') : state;
}

/** What a request that was not approved tells the server: a person's no is `decline`, anything else `cancel`. */
const refusal = <A>(state: RequestState<A>): ElicitResult => ({
  action: state.status === 'denied' && state.source === 'human' ? 'decline' : 'cancel',
});
