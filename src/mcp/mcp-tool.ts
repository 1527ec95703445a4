// One countersign tool for one tool an MCP server offers: its arguments checked against the server's own JSON Schema
// (which the model is shown as it is), its annotations shown to the approver, trusted only when the connection says so.
import type { CallToolResult, Tool as McpToolListing } from '@modelcontextprotocol/sdk/types.js';
import { type AnyTool, defineTool, type ConnectorStatus, type ToolAnnotations } from '../index.js';
import { deepFreeze } from '../kit/index.js';
import { approvalOf } from './approval-setting.js';
import { type McpArguments, inputSchemaOf } from './input-schema.js';
import type { ToolSettings } from './mcp-options.js';
import { toolResultOf } from './tool-result-of.js';

/** What a tool asks of its connection. */
export interface ToolHost {
  readonly status: ConnectorStatus;
  /** Whether the server offers a tool of this (its own) name now. */
  offers(toolName: string): boolean;
  callTool(
    toolName: string,
    args: McpArguments,
    options: { readonly signal: AbortSignal; readonly traceparent?: string },
  ): Promise<CallToolResult>;
}

/** Names a countersign tool may have (the core's rule). */
export const usableToolName = /^[A-Za-z0-9_.-]{1,128}$/;

/** Whether the connection treats this tool as idempotent: only with `trustAnnotations`, only when the server hints it. */
export function trustedIdempotent(settings: ToolSettings, listing: McpToolListing): boolean {
  return settings.trustAnnotations === true && listing.annotations?.idempotentHint === true;
}

/** The countersign tool for `listing` (named `settings.prefix + listing.name`, which must be usable). */
export function mcpTool(listing: McpToolListing, settings: ToolSettings, host: ToolHost): AnyTool {
  const name = `${settings.prefix}${listing.name}`;
  const annotations = annotationsOf(listing);
  const description =
    listing.description || annotations?.title || `${listing.name} (a tool of MCP server ${settings.name})`;
  const trusted = settings.trustAnnotations === true;
  const tool = defineTool<McpArguments>({
    name,
    description,
    input: inputSchemaOf(listing),
    ...approvalOf(settings.requireApproval, listing),
    execute: async (input, ctx) => {
      // A run that paused on this tool may resume after the server dropped it: a clear answer for the model, no crash.
      if (!host.offers(listing.name))
        throw new Error(`MCP server ${settings.name} no longer offers tool ${listing.name}`);
      const trace = ctx.traceparent === undefined ? {} : { traceparent: ctx.traceparent };
      return toolResultOf(await host.callTool(listing.name, input, { signal: ctx.signal, ...trace }));
    },
    connector: settings.name,
    connectorStatus: () => host.status,
    ...(annotations === undefined ? {} : { annotations }),
    ...(trusted && listing.annotations?.readOnlyHint === true ? { readOnly: true } : {}),
    ...(trustedIdempotent(settings, listing) ? { idempotent: true } : {}),
    ...(settings.approvers === undefined ? {} : { approvers: settings.approvers }),
    ...(settings.approvalTtlMs === undefined ? {} : { approvalTtlMs: settings.approvalTtlMs }),
  });
  // The model is shown the server's own schema, not zod's rendering of its conversion.
  return Object.freeze({
    ...tool,
    spec: deepFreeze({
      name,
      description,
      parameters: structuredClone(listing.inputSchema) as Record<string, unknown>,
    }),
  });
}

/** The hints the approver is shown, and the title (the tool's own, else its annotations'). */
function annotationsOf(listing: McpToolListing): ToolAnnotations | undefined {
  const hints = listing.annotations ?? {};
  const title = listing.title ?? hints.title;
  const picked: ToolAnnotations = {
    ...(title === undefined ? {} : { title }),
    ...(hints.readOnlyHint === undefined ? {} : { readOnlyHint: hints.readOnlyHint }),
    ...(hints.destructiveHint === undefined ? {} : { destructiveHint: hints.destructiveHint }),
    ...(hints.idempotentHint === undefined ? {} : { idempotentHint: hints.idempotentHint }),
    ...(hints.openWorldHint === undefined ? {} : { openWorldHint: hints.openWorldHint }),
  };
  return Object.keys(picked).length === 0 ? undefined : picked;
}
