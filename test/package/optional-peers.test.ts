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
  it("import 'countersign' loads neither ioredis nor hono", () => {
    expect(importWithoutPeers('countersign')).toContain('loaded');
  });

  it("import 'countersign/webhooks' loads without hono or ioredis", () => {
    expect(importWithoutPeers('countersign/webhooks')).toContain('loaded');
  });

  it("import 'countersign/email' loads without nodemailer, hono or ioredis", () => {
    expect(importWithoutPeers('countersign/email')).toContain('loaded');
  });

  it("import 'countersign/discord' loads without hono or ioredis", () => {
    expect(importWithoutPeers('countersign/discord')).toContain('loaded');
  });

  it("import 'countersign/slack' loads without hono or ioredis", () => {
    expect(importWithoutPeers('countersign/slack')).toContain('loaded');
  });

  it("import 'countersign/telegram' loads without hono or ioredis", () => {
    expect(importWithoutPeers('countersign/telegram')).toContain('loaded');
  });

  it('the hook does catch a peer import (so the test above can fail)', () => {
    expect(importWithoutPeers('ioredis')).toContain('optional peer dependency loaded: ioredis');
    expect(importWithoutPeers('nodemailer')).toContain('optional peer dependency loaded: nodemailer');
  });
});
