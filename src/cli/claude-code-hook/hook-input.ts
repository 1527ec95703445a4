// What Claude Code sends a command hook on stdin for PreToolUse and PermissionRequest (its hooks reference): the
// session, the tool and its input, read with a size limit and checked. Fields Claude Code adds later are let through.
import { z } from 'zod';

/** Past this many bytes the input is refused unread: no person reviews a call that large. */
export const MAX_HOOK_INPUT_BYTES = 4 * 1024 * 1024;

const hookInputSchema = z
  .object({
    session_id: z.string().min(1),
    transcript_path: z.string().optional(),
    cwd: z.string().optional(),
    permission_mode: z.string().optional(),
    hook_event_name: z.enum(['PreToolUse', 'PermissionRequest'], {
      error:
        'must be PreToolUse or PermissionRequest (configure this hook under hooks.PreToolUse or hooks.PermissionRequest)',
    }),
    tool_name: z.string().min(1),
    tool_input: z.record(z.string(), z.unknown(), { error: "must be an object (the tool call's input)" }),
    tool_use_id: z.string().min(1).optional(),
  })
  .refine((input) => input.hook_event_name !== 'PreToolUse' || input.tool_use_id !== undefined, {
    path: ['tool_use_id'],
    message: 'is required for PreToolUse',
  });

/** A hook input, checked; `tool_input` is the object as sent (every own key kept, `__proto__` too). */
export type HookInput = z.infer<typeof hookInputSchema>;

/** Why stdin is not a hook input Claude Code sends. */
export class HookInputError extends Error {}

/** Reads all of `stdin`, refusing more than `MAX_HOOK_INPUT_BYTES`. */
export async function readHookStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_HOOK_INPUT_BYTES)
      throw new HookInputError(`the hook input is larger than ${MAX_HOOK_INPUT_BYTES} bytes; it was not read`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The hook input in `text`, or a `HookInputError` that says what is wrong. The tool's input is kept as parsed from
 * the JSON, not as the schema copies it: a copy would leave out a `__proto__` key the tool still gets.
 */
export function parseHookInput(text: string): HookInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HookInputError(`the hook input on stdin is not JSON (${(error as Error).message})`);
  }
  const parsed = hookInputSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HookInputError(`the hook input's ${issue.path.join('.') || 'body'} ${issue.message}`);
  }
  return { ...parsed.data, tool_input: (json as { tool_input: Record<string, unknown> }).tool_input };
}
