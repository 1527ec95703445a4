// A grant's argsMatch means what a person reading it expects: `*` stays in one path segment and never takes `..`,
// control characters or shell text; `**` is for depth.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { argsMatch } from '../../src/policy/grants/args-match.js';
import { ValueGlob } from '../../src/policy/grants/value-glob.js';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';

const write = (path: string) => [{ name: 'deploy', args: { path } }];
const deployTo = (env: string) => [{ name: 'deploy', args: { env } }];

describe('argsMatch bounds over a session grant', () => {
  it("'/tmp/*' covers a file in /tmp, not a climb out of it, a deeper path, /tmp itself or a newline", async () => {
    const { run, decide } = grantAgent({ decisionSecret });
    await decide(await run(write('/tmp/first.txt'), 'chat'), {
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { argsMatch: { path: '/tmp/*' } },
    });
    expect((await run(write('/tmp/a.txt'), 'chat')).status).toBe('completed');
    for (const path of [
      '/tmp/../etc/passwd',
      '/tmp/..',
      '/tmp/a/b.txt',
      '/tmp/',
      '/tmp/a\nrm -rf /',
      '/tmp/a b',
      '/tmp/$(id)',
    ]) {
      expect((await run(write(path), 'chat')).status, path).toBe('awaitingApproval');
    }
  });

  it("'staging-*' (the example in docs/decisions.md) does not cover shell text after the name", async () => {
    const { run, decide } = grantAgent({ decisionSecret });
    await decide(await run(deployTo('staging-1'), 'chat'), {
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { argsMatch: { env: 'staging-*' } },
    });
    expect((await run(deployTo('staging-2'), 'chat')).status).toBe('completed');
    for (const env of [
      'staging-1 && deploy prod',
      'staging-1;deploy prod',
      'staging-1\ndeploy prod',
      'staging-`id`',
      'staging-1|x',
    ]) {
      expect((await run(deployTo(env), 'chat')).status, env).toBe('awaitingApproval');
    }
  });

  it("'/srv/app/**' covers any depth under /srv/app, never a climb out", async () => {
    const { run, decide } = grantAgent({ decisionSecret });
    await decide(await run(write('/srv/app/x'), 'chat'), {
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { argsMatch: { path: '/srv/app/**' } },
    });
    expect((await run(write('/srv/app/a/b/c.txt'), 'chat')).status).toBe('completed');
    expect((await run(write('/srv/app/a/../../../etc/passwd'), 'chat')).status).toBe('awaitingApproval');
    expect((await run(write('/srv/other/x'), 'chat')).status).toBe('awaitingApproval');
  });
});

describe('ValueGlob', () => {
  const safeChar = fc.constantFrom(...'abcXYZ019._+@=,:~-');
  const segment = fc.string({ unit: safeChar, minLength: 1, maxLength: 6 }).filter((text) => text !== '..');
  const anyChar = fc.constantFrom(...'ab/.-* ?\n\t;&|$`\'"%\u0000\u202e');

  it('a `*` never takes `/`, and `/tmp/*` covers exactly one non-empty segment that is not `..`', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyChar, maxLength: 12 }), (rest) => {
        const covered = new ValueGlob('/tmp/*').test(`/tmp/${rest}`);
        const expected =
          rest.length > 0 && rest !== '..' && [...rest].every((char) => /[A-Za-z0-9._+@=,:~-]/.test(char));
        expect(covered).toBe(expected);
      }),
    );
  });

  it('no wildcard matches a value with a `..` segment, whatever the pattern', () => {
    const pattern = fc
      .string({ unit: fc.constantFrom('a', '/', '*', '**', '?', '.'), maxLength: 8 })
      .filter((text) => /[*?]/.test(text));
    const climbing = fc
      .tuple(fc.array(segment, { maxLength: 3 }), fc.array(segment, { maxLength: 3 }))
      .map(([before, after]) => [...before, '..', ...after].join('/'));
    fc.assert(
      fc.property(pattern, climbing, (source, value) => {
        expect(new ValueGlob(source).test(value)).toBe(false);
      }),
    );
  });

  it('a wildcard never takes whitespace, a control character or shell text', () => {
    const bad = fc.constantFrom(
      ' ',
      '\n',
      '\r',
      '\t',
      '\u0000',
      '\u007f',
      '\u0085',
      '\u2028',
      '\u202e',
      '\u200b',
      ';',
      '&',
      '|',
      '$',
      '`',
      '(',
      ')',
      '<',
      '>',
      '"',
      "'",
      '\\',
      '%',
      '*',
      '?',
      '!',
      '#',
      '{',
      '}',
      '[',
      ']',
    );
    fc.assert(
      fc.property(
        fc.constantFrom('*', '**', '?', 'x-*', '*-x', 'a/**/b'),
        segment,
        bad,
        segment,
        (source, before, char, after) => {
          const value =
            source === 'a/**/b'
              ? `a/${before}${char}${after}/b`
              : `${source.startsWith('x-') ? 'x-' : ''}${before}${char}${after}${source.endsWith('-x') ? '-x' : ''}`;
          expect(new ValueGlob(source).test(value)).toBe(false);
        },
      ),
    );
  });

  it('a pattern without wildcards matches only the same text, and matching stays linear on a near miss', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: anyChar.filter((char) => char !== '*' && char !== '?') }),
        fc.string(),
        (source, value) => {
          expect(new ValueGlob(source).test(value)).toBe(source === value);
          expect(new ValueGlob(source).test(source)).toBe(true);
        },
      ),
    );
    // Exponential backtracking would not finish this; the set-of-steps walk is O(value × pattern).
    expect(new ValueGlob(`${'*a'.repeat(40)}b`).test('a'.repeat(5_000))).toBe(false);
  });

  it('argsMatch keeps exact JSON values and missing paths as before', () => {
    expect(argsMatch({ 'options.force': false }, { options: { force: false } })).toBe(true);
    expect(argsMatch({ 'options.force': false }, { options: { force: true } })).toBe(false);
    expect(argsMatch({ path: '/tmp/*' }, {})).toBe(false);
    expect(argsMatch({ env: 'dev-?' }, { env: 'dev-1' })).toBe(true);
    expect(argsMatch({ env: 'dev-?' }, { env: 'dev-12' })).toBe(false);
  });
});
