// One call of a Claude Code tool as the request a person decides: the tool's name, what they see (secrets in text
// redacted) and a line saying what is asked; and, once approved, the input the tool runs with.
import { InvalidEditError } from '../errors.js';
import { EditIssue } from './edit-issue.js';
import { redactDeep, restoreRedacted, sameJson } from './redacted-view.js';
import { isRecord, type Json } from './tool-shape.js';
import { toolShape } from './tool-shapes.js';

/** A Claude Code tool call put as a request. */
export interface ToolRequest {
  /** The tool's name, as rules match it (`Bash`, `mcp__github__create_issue`). */
  readonly tool: string;
  /** What the person sees and may edit: the call's view with the secrets in its text redacted. */
  readonly args: Json;
  /** What is asked, in one line. */
  readonly description: string;
  /**
   * The input the tool runs with for arguments approved as `approved` (request `requestId`): undefined when they are
   * the arguments asked about, else the edit as the tool's input. An edit that does not fit throws `InvalidEditError`.
   */
  inputFor(approved: { readonly [key: string]: unknown }, requestId: string): Json | undefined;
}

/**
 * The request for a call of Claude Code's tool `toolName` with `input`.
 */
export function toolRequest(toolName: string, input: Json): ToolRequest {
  const shape = toolShape(toolName);
  const view = shape.view(input);
  const args = redactDeep(view) as Json;
  return {
    tool: toolName,
    args,
    description: shape.describe(args),
    inputFor(approved, requestId) {
      if (sameJson(approved, args)) return undefined;
      try {
        const real = restoreRedacted(approved, args, view);
        if (!isRecord(real)) throw new EditIssue('$', 'must be an object');
        return shape.input(real, input);
      } catch (error) {
        if (!(error instanceof EditIssue)) throw error;
        throw new InvalidEditError(requestId, toolName, [{ path: error.path, message: error.message }]);
      }
    },
  };
}
