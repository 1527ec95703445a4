// countersign/claude-agent-sdk: a person between the Claude Agent SDK and its tool calls (`canUseTool`). Claude
// Code's own hook is the CLI's `countersign hook claude-code`, which shares this folder's view of Claude Code's tools.
export { canUseTool } from './can-use-tool.js';
export type { CanUseToolOptions } from './can-use-tool-options.js';
