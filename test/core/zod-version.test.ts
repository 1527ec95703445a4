import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { describe, expect, it } from 'vitest';
import { ConfigError, defineTool } from 'countersign';

const tool = (input: unknown) =>
  defineTool({ name: 'read_file', description: 'Read a file', input: input as z.ZodType, execute: () => 'text' });

describe('defineTool input: zod 4 only', () => {
  it('a zod 3 schema is refused with a ConfigError that names zod 4 and how to get it', () => {
    expect(() => tool(z3.object({ path: z3.string() }))).toThrow(ConfigError);
    expect(() => tool(z3.object({ path: z3.string() }))).toThrow(
      'defineTool("read_file"): input is a zod 3 schema; countersign needs zod 4 schemas: npm install zod@^4 and import { z } from "zod", or on zod 3.25 import { z } from "zod/v4".',
    );
  });

  it('something that is no schema at all gets the general message, and a zod 4 schema is taken', () => {
    expect(() => tool({ path: 'string' })).toThrow(
      'defineTool("read_file"): input must be a zod schema, e.g. z.object({ path: z.string() })',
    );
    expect(tool(z.object({ path: z.string() })).spec.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' } },
    });
  });
});
