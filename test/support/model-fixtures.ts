// What the model adapters' suites share: the tool they offer the model, and a fake provider for one test file,
// started once and its recorded requests cleared before each test.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ToolSpec } from 'countersign';

export const deleteSpec: ToolSpec = {
  name: 'delete_file',
  description: 'Delete a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

/** The fake started by `start` for this test file; read `.current` inside tests. */
export function useFake<Fake extends { readonly requests: { length: number }; close(): unknown }>(
  start: () => Promise<Fake>,
): { readonly current: Fake } {
  const holder = {} as { current: Fake };
  beforeAll(async () => {
    holder.current = await start();
  });
  afterAll(() => holder.current.close());
  beforeEach(() => {
    holder.current.requests.length = 0;
  });
  return holder;
}
