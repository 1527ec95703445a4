// The model examples run as a user runs them (npm run example:ai-sdk, example:anthropic), as child processes
// pointed at a loopback server speaking Anthropic's Messages API; their output and the requests they made are read.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { anthropicReply } from '../adapters/ai-sdk/anthropic-wire.js';
import { startFakeProviderApi } from '../adapters/ai-sdk/fake-provider-api.js';
import { useFake } from '../support/model-fixtures.js';

const KEY = 'sk-ant-api03-example-key';
const SIGNATURE = 'EqQBCkYIBxgCKkCfGx3bOL2+Q9nEexampleSignature/Zk=';

const apis = useFake(startFakeProviderApi);

/** Runs an example to its end with the API's address and key in its environment; rejects (with its stderr) when it fails. */
async function runExample(file: string, baseUrl: string): Promise<string[]> {
  const env = { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl };
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { env, encoding: 'utf8' });
  return stdout.trimEnd().split('\n');
}

describe('the model examples', () => {
  it('examples/ai-sdk.ts streams the answers, pauses for delete_file, is approved and finishes', async () => {
    apis.current.script(
      anthropicReply({
        id: 'msg_01',
        content: [
          { type: 'text', text: "I'll delete /tmp/report.txt." },
          { type: 'tool_use', id: 'toolu_01', name: 'delete_file', input: { path: '/tmp/report.txt' } },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 300, output_tokens: 40 },
      }),
      anthropicReply({
        id: 'msg_02',
        content: [{ type: 'text', text: 'Deleted /tmp/report.txt.' }],
        stopReason: 'end_turn',
        usage: { input_tokens: 380, output_tokens: 10 },
      }),
    );
    // @ai-sdk/anthropic reads ANTHROPIC_BASE_URL with the /v1 path.
    const lines = await runExample('examples/ai-sdk.ts', apis.current.baseURL);

    expect(lines).toEqual([
      "I'll delete /tmp/report.txt.",
      'status: awaitingApproval',
      'approval requested: delete_file {"path":"/tmp/report.txt"}',
      'Deleted /tmp/report.txt.',
      'status: completed',
      'answer: Deleted /tmp/report.txt.',
      'files left: /tmp/notes.txt',
      'tokens: 680 in, 50 out',
    ]);
    expect(
      apis.current.requests.map((request) => [request.path, request.headers['x-api-key'], request.json.stream]),
    ).toEqual([
      ['/v1/messages', KEY, true],
      ['/v1/messages', KEY, true],
    ]);
    expect(apis.current.requests[1]!.json.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '{"deleted":true,"path":"/tmp/report.txt"}' }],
    });
  });

  it('examples/anthropic.ts thinks, pauses for the refund, is stored and resumed, and sends the signed thinking back unchanged', async () => {
    const thought = 'The order never arrived; a refund of 1200 cents to acct-42 needs a person.';
    apis.current.script(
      anthropicReply({
        id: 'msg_01',
        content: [
          { type: 'thinking', thinking: thought, signature: SIGNATURE },
          { type: 'tool_use', id: 'toolu_01', name: 'refund', input: { account: 'acct-42', cents: 1200 } },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 300, output_tokens: 80 },
      }),
      anthropicReply({
        id: 'msg_02',
        content: [{ type: 'text', text: 'Refunded $12.00 to acct-42.' }],
        stopReason: 'end_turn',
        usage: { input_tokens: 420, output_tokens: 12 },
      }),
    );
    // createAnthropicModel, as Anthropic's SDK, reads the API's origin.
    const lines = await runExample('examples/anthropic.ts', apis.current.baseURL.replace(/\/v1$/, ''));

    expect(lines).toEqual([
      'status: awaitingApproval',
      'approval requested: Refund $12.00 to acct-42?',
      `thought: ${thought}`,
      expect.stringMatching(/^stored: \d+ characters$/),
      'status: completed',
      'answer: Refunded $12.00 to acct-42.',
      'acct-42 balance: $132.00',
    ]);
    const [first, second] = apis.current.requests;
    expect(first!.json.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(second!.headers['x-api-key']).toBe(KEY);
    expect(second!.body).toContain(
      `{"type":"thinking","thinking":${JSON.stringify(thought)},"signature":"${SIGNATURE}"}`,
    );
    expect(second!.json.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '{"refunded":1200,"account":"acct-42"}' }],
    });
  });
});
