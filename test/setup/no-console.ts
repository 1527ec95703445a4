// A test that writes to the console fails: output nobody asserts on hides problems.
import { afterEach, vi } from 'vitest';

const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
const written: string[] = [];

for (const method of methods) {
  vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
    written.push(`console.${method}: ${args.map(String).join(' ')}`);
  });
}

afterEach(() => {
  if (written.length > 0) {
    const lines = written.splice(0);
    throw new Error(`The test wrote to the console:\n${lines.join('\n')}`);
  }
});
