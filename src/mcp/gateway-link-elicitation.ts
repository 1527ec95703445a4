// How the gateway asks a client that declared URL-mode elicitation to wait for a person: one `elicitation/create`
// (mode `url`) on the call's own stream, pointing at countersign's one-click link page for the pending approval (a
// sealed, single-use, expiring token), and `notifications/elicitation/complete` once the call is decided. What the
// client answers is a hint about whether anyone will look, never a decision: only a person's recorded decision counts.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ElicitResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { type ApprovalRequest, approvalLinkUrl, type LinkedRuntime } from '../index.js';

/** The client's answer to the elicitation: `accept` (it showed the page), `decline`, `cancel`; `failed` when none came. */
export type ElicitationHint = 'accept' | 'decline' | 'cancel' | 'failed';

/** Asks one client, for one call, to have a person open the link page of the approval that call waits for. */
export interface LinkPageAsk {
  /** Sends the elicitation for `request` of run `runId`; resolves with the client's answer (or `failed`). */
  ask(runId: string, request: ApprovalRequest, waitMs: number, signal: AbortSignal): Promise<ElicitationHint>;
  /** Tells the client the page's interaction is over (the call was decided); nothing when it was never asked. */
  decided(): Promise<void>;
}

export interface LinkPageSettings {
  readonly runtime: LinkedRuntime;
  /** The approval app's public base URL. */
  readonly approvalUrl: string;
}

type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The asker for one tools/call, when its client declared URL-mode elicitation; otherwise undefined. */
export function linkPageAsk(settings: LinkPageSettings, server: Server, extra: HandlerExtra): LinkPageAsk | undefined {
  if (server.getClientCapabilities()?.elicitation?.url === undefined) return undefined;
  let asked: string | undefined;
  return {
    async ask(runId, request, waitMs, signal) {
      try {
        const { approve, deny } = await settings.runtime.linkTokens(runId, request.approvalId);
        if (approve === undefined) return 'failed';
        const elicitationId = randomUUID();
        const denyText = deny === undefined ? '' : ` To deny it: ${approvalLinkUrl(settings.approvalUrl, deny)}`;
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              mode: 'url',
              elicitationId,
              url: approvalLinkUrl(settings.approvalUrl, approve),
              message: `A person must approve ${request.toolName} before it runs. Open the page to review and approve this call; it works once.${denyText}`,
            },
          },
          ElicitResultSchema,
          { timeout: Math.max(1, waitMs), signal },
        );
        asked = elicitationId;
        return result.action;
      } catch {
        return 'failed';
      }
    },
    async decided() {
      if (asked === undefined) return;
      await extra
        .sendNotification({ method: 'notifications/elicitation/complete', params: { elicitationId: asked } })
        .catch(() => undefined);
    },
  };
}
