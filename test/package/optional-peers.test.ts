import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function importWithoutPeers(specifier: string, allowedPeer = ''): string {
  const script = `await import(${JSON.stringify(specifier)}); console.log('loaded');`;
  try {
    return execFileSync(
      process.execPath,
      ['--import', 'tsx', '--import', './test/support/forbid-optional-peers.mjs', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, COUNTERSIGN_ALLOW_PEER: allowedPeer },
      },
    );
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
}

describe('optional peer dependencies', () => {
  // The core, the channel kit, every channel and every model adapter: none loads hono, @hono/node-server, ioredis,
  // nodemailer, ai, @ai-sdk/*, @modelcontextprotocol/sdk, @anthropic-ai/claude-agent-sdk, @opentelemetry/api or @ag-ui/*
  // (countersign/ai-sdk, countersign/claude-agent-sdk and countersign/ui take only types from their SDKs).
  const subpaths = [
    'countersign',
    'countersign/channels',
    'countersign/webhooks',
    'countersign/slack',
    'countersign/telegram',
    'countersign/email',
    'countersign/discord',
    'countersign/openai',
    'countersign/anthropic',
    'countersign/ai-sdk',
    'countersign/claude-agent-sdk',
    // Types only from the AI SDK; the AG-UI encoder is loaded when an AG-UI handler first answers.
    'countersign/ui',
  ];
  it.each(subpaths)("import '%s' loads without hono, ioredis, nodemailer, the AI SDK or the MCP SDK", (specifier) => {
    expect(importWithoutPeers(specifier)).toContain('loaded');
  });

  it("import 'countersign/otel' loads @opentelemetry/api and none of the other peers", () => {
    expect(importWithoutPeers('countersign/otel', '@opentelemetry/api')).toContain('loaded');
    expect(importWithoutPeers('countersign/otel')).toContain('optional peer dependency loaded: @opentelemetry/api');
  });

  it("import 'countersign/mcp' loads the MCP SDK and none of the other peers", () => {
    expect(importWithoutPeers('countersign/mcp', '@modelcontextprotocol/sdk')).toContain('loaded');
    expect(importWithoutPeers('countersign/mcp')).toContain(
      'optional peer dependency loaded: @modelcontextprotocol/sdk',
    );
  });

  it('the hook does catch a peer import (so the test above can fail)', () => {
    expect(importWithoutPeers('ioredis')).toContain('optional peer dependency loaded: ioredis');
    expect(importWithoutPeers('hono')).toContain('optional peer dependency loaded: hono');
    expect(importWithoutPeers('nodemailer')).toContain('optional peer dependency loaded: nodemailer');
    expect(importWithoutPeers('ai')).toContain('optional peer dependency loaded: ai');
    expect(importWithoutPeers('@ai-sdk/provider')).toContain('optional peer dependency loaded: @ai-sdk/provider');
    expect(importWithoutPeers('@ag-ui/encoder')).toContain('optional peer dependency loaded: @ag-ui/encoder');
    expect(importWithoutPeers('@modelcontextprotocol/sdk/client/index.js')).toContain(
      'optional peer dependency loaded: @modelcontextprotocol/sdk',
    );
    expect(importWithoutPeers('@anthropic-ai/claude-agent-sdk')).toContain(
      'optional peer dependency loaded: @anthropic-ai/claude-agent-sdk',
    );
    expect(importWithoutPeers('@opentelemetry/api')).toContain('optional peer dependency loaded: @opentelemetry/api');
  });
});
