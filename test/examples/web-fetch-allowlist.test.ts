import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('examples/web-fetch-allowlist.ts', () => {
  it('fetches an allowlisted domain without asking, asks for another, and add_domain (asked) stops the asking', () => {
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'examples/web-fetch-allowlist.ts'], {
      encoding: 'utf8',
    });
    expect(output.split('\n').filter((line) => line.startsWith('asks: '))).toEqual([
      'asks: fetch_url {"url":"https://blog.example.org/latest"}: Domain "blog.example.org" is not on the allowlist. Approval required to fetch.',
      'asks: add_domain {"domain":"blog.example.org"}: Adding a domain to the allowlist grants permanent fetch access.',
    ]);
    expect(output).toContain(
      [
        'fetch_url: approved (no need to ask)',
        'fetch_url: approved (asked, by alice)',
        'add_domain: approved (asked, by alice)',
        'fetch_url: approved (no need to ask)',
      ].join('\n'),
    );
    // The pages came from the example's loopback server.
    expect(output).toContain('result: {"url":"https://docs.example.com/intro","text":"Welcome to the docs."}');
    expect(output.match(/"text":"Release notes: v2 is out\."/g)).toHaveLength(2);
    expect(output).toContain('allowlist: docs.example.com, blog.example.org');
    expect(output).toContain('answer: Read the intro and the latest release notes.');
  });
});
