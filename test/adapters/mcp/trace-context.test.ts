// The W3C trace context through the MCP gateway: a client's `_meta.traceparent` is continued by the call's run, and
// the upstream is called in the trace (the call's own span when the gateway traces, the client's unchanged when not).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openTelemetry } from 'countersign/otel';
import { closeGateways, gatewayWithClient } from '../../support/mcp-gateway-kit.js';
import { memoryTelemetry } from '../../support/otel-harness.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const traceparent = `00-${TRACE}-${CLIENT_SPAN}-01`;
const allowReads = { policy: { rules: [{ tool: 'read_file', action: 'allow' as const }] } };

afterEach(closeGateways);

describe('trace context through the MCP gateway', () => {
  it("continues the client's trace in the call's run and calls the upstream from the call's own span", async () => {
    const telemetry = memoryTelemetry();
    const { client, log } = await gatewayWithClient({
      ...allowReads,
      telemetry: openTelemetry({ tracer: telemetry.tracer, meter: telemetry.meter }),
    });
    const result = (await client.callTool({
      name: 'read_file',
      arguments: { path: '/tmp/a' },
      _meta: { traceparent },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    await vi.waitFor(() => expect(telemetry.spans().some((span) => span.name.startsWith('execute_tool'))).toBe(true), {
      timeout: 10_000,
    });
    const run = telemetry.spans().find((span) => span.name.startsWith('invoke_agent'))!;
    expect(run.spanContext().traceId).toBe(TRACE);
    expect(run.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    const tool = telemetry.span('execute_tool read_file');
    expect(log.calls('read_file')).toEqual([
      { tool: 'read_file', args: { path: '/tmp/a' }, traceparent: `00-${TRACE}-${tool.spanContext().spanId}-01` },
    ]);
  });

  it("passes the client's trace on unchanged when the gateway traces nothing, and ignores a malformed one", async () => {
    const { client, log } = await gatewayWithClient(allowReads);
    await client.callTool({ name: 'read_file', arguments: { path: '/tmp/b' }, _meta: { traceparent } });
    await client.callTool({ name: 'read_file', arguments: { path: '/tmp/c' }, _meta: { traceparent: 'not-a-trace' } });
    expect(log.calls('read_file')).toEqual([
      { tool: 'read_file', args: { path: '/tmp/b' }, traceparent },
      { tool: 'read_file', args: { path: '/tmp/c' } },
    ]);
  });
});
