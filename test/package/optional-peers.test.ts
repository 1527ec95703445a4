import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function importWithoutPeers(specifier: string): string {
  const script = `await import(${JSON.stringify(specifier)}); console.log('loaded');`;
  try {
    return execFileSync(process.execPath, ['--import', 'tsx', '--import', './test/support/forbid-optional-peers.mjs', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
}

describe('optional peer dependencies', () => {
  // The core, the channel kit, every channel and the OpenAI models: none loads hono, @hono/node-server, ioredis or nodemailer.
  const subpaths = [
    'countersign',
    'countersign/channels',
    'countersign/webhooks',
    'countersign/slack',
    'countersign/telegram',
    'countersign/email',
    'countersign/discord',
    'countersign/openai',
  ];
  it.each(subpaths)("import '%s' loads without hono, ioredis or nodemailer", (specifier) => {
    expect(importWithoutPeers(specifier)).toContain('loaded');
  });

  it('the hook does catch a peer import (so the test above can fail)', () => {
    expect(importWithoutPeers('ioredis')).toContain('optional peer dependency loaded: ioredis');
    expect(importWithoutPeers('hono')).toContain('optional peer dependency loaded: hono');
    expect(importWithoutPeers('nodemailer')).toContain('optional peer dependency loaded: nodemailer');
  });
});
