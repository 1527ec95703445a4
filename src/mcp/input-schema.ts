// The zod schema that checks a call's arguments against an MCP tool's JSON Schema before anyone is asked: zod's own
// conversion where it can (its issues name the path), the SDK's ajv validator where it cannot (if/then, not, ...).
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Tool as McpToolListing } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export type McpArguments = Record<string, unknown>;

let ajv: AjvJsonSchemaValidator | undefined;

/** A schema for the arguments of `listing`; one that refuses every call, saying why, when the server's schema cannot be read. */
export function inputSchemaOf(listing: McpToolListing): z.ZodType<McpArguments> {
  const jsonSchema = listing.inputSchema as Parameters<typeof z.fromJSONSchema>[0];
  try {
    return z.fromJSONSchema(jsonSchema) as z.ZodType<McpArguments>;
  } catch {
    // Beyond zod's conversion: the validator the SDK itself uses for tool output.
  }
  try {
    ajv ??= new AjvJsonSchemaValidator();
    const validate = ajv.getValidator<McpArguments>(
      listing.inputSchema as Parameters<AjvJsonSchemaValidator['getValidator']>[0],
    );
    return z.custom<McpArguments>().superRefine((value, ctx) => {
      const result = validate(value);
      if (!result.valid) ctx.addIssue({ code: 'custom', message: result.errorMessage });
    });
  } catch (error) {
    const reason = `the input schema the server gives for ${listing.name} cannot be read (${(error as Error).message}), so no call of it can be checked`;
    return z.custom<McpArguments>().superRefine((_, ctx) => ctx.addIssue({ code: 'custom', message: reason }));
  }
}
