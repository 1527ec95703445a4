// Claude Code's tools as a person is asked about them: what each kind shows and says, the diff of an edit and the
// edit read back, secrets in text redacted and put back, and edits that cannot become the tool's input refused.
import { InvalidEditError } from 'countersign';
import { describe, expect, it } from 'vitest';
import { toolRequest } from '../../../src/claude-code/tool-request.js';
import { readUnifiedDiff, unifiedDiff } from '../../../src/claude-code/unified-diff.js';

describe('a Claude Code tool call as a request', () => {
  it('shows Bash as its command line and description, and every other field', () => {
    const input = { command: 'npm test', description: 'Run the tests', timeout: 120000 };
    const request = toolRequest('Bash', input);
    expect(request).toMatchObject({ tool: 'Bash', args: input, description: 'Run npm test' });
    expect(request.inputFor(input, 'req_1')).toBeUndefined();
    expect(request.inputFor({ ...input, command: 'npm test -- --run' }, 'req_1')).toEqual({
      ...input,
      command: 'npm test -- --run',
    });
  });

  it('shows Write as its path and content, Read, Glob and Grep as their paths and patterns, WebFetch as its URL and prompt', () => {
    expect(toolRequest('Write', { file_path: '/srv/a.txt', content: 'one\ntwo' })).toMatchObject({
      args: { file_path: '/srv/a.txt', content: 'one\ntwo' },
      description: 'Write /srv/a.txt (2 lines)',
    });
    expect(toolRequest('Read', { file_path: '/etc/hosts' }).description).toBe('Read /etc/hosts');
    expect(toolRequest('Glob', { pattern: '**/*.ts', path: '/srv' }).description).toBe(
      'Find files matching **/*.ts in /srv',
    );
    expect(toolRequest('Grep', { pattern: 'TODO', path: 'src', '-i': true })).toMatchObject({
      args: { pattern: 'TODO', path: 'src', '-i': true },
      description: 'Search for TODO in src',
    });
    expect(toolRequest('WebFetch', { url: 'https://example.com/a', prompt: 'Summarise' })).toMatchObject({
      args: { url: 'https://example.com/a', prompt: 'Summarise' },
      description: 'Fetch https://example.com/a',
    });
  });

  it('shows Edit as the unified diff of the old and new text, and reads an edited diff back', () => {
    const input = {
      file_path: '/srv/app.ts',
      old_string: 'const a = 1;\nconst b = 2;',
      new_string: 'const a = 1;\nconst b = 3;',
    };
    const request = toolRequest('Edit', input);
    expect(request.args).toEqual({
      file_path: '/srv/app.ts',
      diff: '@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;',
    });
    expect(request.description).toBe('Edit /srv/app.ts');
    expect(request.inputFor(request.args, 'req_1')).toBeUndefined();
    const edited = { ...request.args, diff: '@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 4;' };
    expect(request.inputFor(edited, 'req_1')).toEqual({ ...input, new_string: 'const a = 1;\nconst b = 4;' });
  });

  it('shows MultiEdit as one hunk an edit, replace_all in its header, and reads them back', () => {
    const input = {
      file_path: '/srv/a.md',
      edits: [
        { old_string: 'foo', new_string: 'bar', replace_all: true },
        { old_string: 'x\ny', new_string: 'x\nz' },
      ],
    };
    const request = toolRequest('MultiEdit', input);
    expect(request.args['diff']).toBe('@@ -1,1 +1,1 @@ (replace all)\n-foo\n+bar\n@@ -1,2 +1,2 @@\n x\n-y\n+z');
    expect(request.description).toBe('Edit /srv/a.md (2 changes)');
    const edited = { ...request.args, diff: `${request.args['diff']}\n@@ -1,1 +1,1 @@\n-q\n+r` };
    expect(request.inputFor(edited, 'req_1')).toEqual({
      file_path: '/srv/a.md',
      edits: [...input.edits, { old_string: 'q', new_string: 'r' }],
    });
  });

  it('shows an MCP tool as its server, tool and arguments, and takes an edit of the arguments only', () => {
    const request = toolRequest('mcp__github__create_issue', { repo: 'acme/api', title: 'Flaky test' });
    expect(request).toMatchObject({
      tool: 'mcp__github__create_issue',
      args: { server: 'github', tool: 'create_issue', arguments: { repo: 'acme/api', title: 'Flaky test' } },
      description: 'create_issue on MCP server github',
    });
    const edited = { ...request.args, arguments: { repo: 'acme/api', title: 'Flaky login test' } };
    expect(request.inputFor(edited, 'req_1')).toEqual({ repo: 'acme/api', title: 'Flaky login test' });
    expect(() => request.inputFor({ ...request.args, tool: 'delete_repo' }, 'req_1')).toThrow(InvalidEditError);
  });

  it('redacts the secrets in what the person sees and puts them back where the approved edit left them as shown', () => {
    const input = {
      command: 'curl -H "Authorization: Bearer abcdef123456" https://api.example.com',
      description: 'Call the API',
    };
    const request = toolRequest('Bash', input);
    expect(request.args['command']).toBe('curl -H "Authorization: [redacted] [redacted]" https://api.example.com');
    expect(JSON.stringify(request)).not.toContain('abcdef123456');
    // Approved as shown: the tool runs with its own input.
    expect(request.inputFor(request.args, 'req_1')).toBeUndefined();
    // Another field edited: the command, left as shown, is the real one again.
    expect(request.inputFor({ ...request.args, description: 'Query the API' }, 'req_1')).toEqual({
      ...input,
      description: 'Query the API',
    });
  });

  it('refuses an edit that keeps a redacted secret, and a diff that is not one, as InvalidEditError', () => {
    const bash = toolRequest('Bash', { command: 'psql postgres://admin:hunter2@db/prod -c "select 1"' });
    expect(bash.args['command']).toBe('psql postgres://[redacted]@db/prod -c "select 1"');
    expect(() => bash.inputFor({ command: 'psql postgres://[redacted]@db/prod -c "select 2"' }, 'req_9')).toThrow(
      /req_9.*command: the edit keeps a redacted secret/,
    );
    const edit = toolRequest('Edit', { file_path: '/a', old_string: 'a', new_string: 'b' });
    expect(() => edit.inputFor({ file_path: '/a', diff: 'not a diff' }, 'req_9')).toThrow(InvalidEditError);
    expect(() => edit.inputFor({ file_path: '/a', diff: '@@ -1 +1 @@\n-a\n+b\n@@ -1 +1 @@\n-c\n+d' }, 'req_9')).toThrow(
      /one change/,
    );
  });

  it('shows a tool it does not know as it is, and keeps a __proto__ key as a key', () => {
    const input = JSON.parse('{"notebook":"/n.ipynb","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const request = toolRequest('SomeNewTool', input);
    expect(request.description).toBe('Use SomeNewTool');
    expect(Object.keys(request.args)).toEqual(['notebook', '__proto__']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('the unified diff of an edit', () => {
  it('reads back exactly the old and new text it shows, trailing newlines and blank lines included', () => {
    const cases = [
      { oldText: 'a\nb\n', newText: 'a\nc\n' },
      { oldText: '', newText: 'new file line' },
      { oldText: 'x\n\ny', newText: 'x\ny\n\n' },
      { oldText: 'same', newText: 'same' },
    ];
    for (const change of cases) expect(readUnifiedDiff(unifiedDiff([change]))).toEqual([change]);
  });

  it('takes an edited diff whose editor stripped the lone space of a blank context line', () => {
    expect(readUnifiedDiff('@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n')).toEqual([{ oldText: 'a\n\nb', newText: 'a\n\nc' }]);
  });
});
