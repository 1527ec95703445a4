// How each of Claude Code's tools is put to a person: most are shown as they are, an edit of a file as a unified
// diff (diff-shapes.ts), and an MCP tool as its server, its tool and its arguments.
import { edit, multiEdit } from './diff-shapes.js';
import { EditIssue } from './edit-issue.js';
import { asIs, isRecord, line, type ToolShape } from './tool-shape.js';

/** An MCP tool (`mcp__<server>__<tool>`): its server and tool, and its arguments, which are all a person may change. */
function mcpTool(server: string, tool: string): ToolShape {
  return {
    view: (input) => ({ server, tool, arguments: input }),
    input: (view) => {
      if (view['server'] !== server || view['tool'] !== tool)
        throw new EditIssue(
          view['server'] !== server ? 'server' : 'tool',
          'an edit changes the arguments only, never the server or the tool',
        );
      if (!isRecord(view['arguments'])) throw new EditIssue('arguments', 'must be an object');
      return view['arguments'];
    },
    describe: () => `${tool} on MCP server ${server}`,
  };
}

const SHAPES: Readonly<Record<string, ToolShape>> = {
  Bash: asIs((view) => `Run ${line(view['command'])}`),
  Write: asIs((view) => `Write ${line(view['file_path'])} (${String(view['content']).split('\n').length} lines)`),
  Edit: edit,
  MultiEdit: multiEdit,
  Read: asIs((view) => `Read ${line(view['file_path'])}`),
  Glob: asIs(
    (view) =>
      `Find files matching ${line(view['pattern'])}${view['path'] === undefined ? '' : ` in ${line(view['path'])}`}`,
  ),
  Grep: asIs(
    (view) => `Search for ${line(view['pattern'])}${view['path'] === undefined ? '' : ` in ${line(view['path'])}`}`,
  ),
  WebFetch: asIs((view) => `Fetch ${line(view['url'])}`),
  WebSearch: asIs((view) => `Search the web for ${line(view['query'])}`),
  NotebookEdit: asIs((view) => `Edit notebook ${line(view['notebook_path'])}`),
};

/** How the tool named `toolName` is put to a person; any tool this does not know is shown as it is. */
export function toolShape(toolName: string): ToolShape {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  if (mcp) return mcpTool(mcp[1]!, mcp[2]!);
  return (Object.hasOwn(SHAPES, toolName) ? SHAPES[toolName] : undefined) ?? asIs(() => `Use ${toolName}`);
}
