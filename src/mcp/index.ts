export { connectMcpServer, mcpTools } from './connect.js';
export { createMcpGateway, type McpGateway } from './create-gateway.js';
export { mcpGatewayAgent } from './gateway-agent.js';
export type { McpGatewayOAuth, McpGatewayOptions, McpGatewaySettings } from './gateway-options.js';
export type { McpConnection } from './mcp-connection.js';
export type {
  McpElicitationOptions,
  McpServerOptions,
  McpToolOptions,
  ReconnectOptions,
  RequireApproval,
} from './mcp-options.js';
export { toolResultOf } from './tool-result-of.js';
