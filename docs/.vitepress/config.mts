import { defineConfig } from 'vitepress';

// The manual. Dead links fail the build (VitePress's default): a page that moves must take its links with it.
export default defineConfig({
  title: 'countersign',
  description: 'Put a human between an AI agent and its risky tool calls.',
  cleanUrls: true,
  themeConfig: {
    search: { provider: 'local' },
    outline: [2, 3],
    nav: [
      { text: 'Guide', link: '/getting-started' },
      { text: 'API', link: '/api' },
      { text: 'Guarantees', link: '/guarantees' },
      { text: 'Architecture', link: '/architecture/' },
    ],
    sidebar: [
      {
        text: 'Start',
        items: [
          { text: 'Overview', link: '/' },
          { text: 'Getting started', link: '/getting-started' },
          { text: 'Production checklist', link: '/production-checklist' },
          { text: 'What you can rely on', link: '/guarantees' },
          { text: 'Threat model', link: '/threat-model' },
        ],
      },
      {
        text: 'Concepts',
        items: [
          { text: 'API reference', link: '/api' },
          { text: 'Policy', link: '/policy' },
          { text: 'Decisions and grants', link: '/decisions' },
          { text: 'Quorum', link: '/quorum' },
          { text: 'Who decided, provably', link: '/identity' },
          { text: 'Approvals for any caller', link: '/requests' },
          { text: 'Agents inside agents', link: '/nested-agents' },
          { text: 'Runtime and stores', link: '/runtime' },
          { text: 'Durability', link: '/durability' },
          { text: 'Serverless', link: '/serverless' },
        ],
      },
      {
        text: 'Surfaces',
        items: [
          { text: 'HTTP (countersign/http)', link: '/http' },
          { text: 'Console', link: '/console' },
          { text: 'Command line', link: '/cli' },
          { text: 'MCP (countersign/mcp)', link: '/mcp' },
          { text: 'Claude Code (hook)', link: '/claude-code' },
          { text: 'Claude Agent SDK (countersign/claude-agent-sdk)', link: '/claude-agent-sdk' },
          { text: 'Redis (countersign/redis)', link: '/redis' },
          { text: 'Telemetry (countersign/otel)', link: '/telemetry' },
          { text: 'Chat: useChat (countersign/ui)', link: '/chat-ai-sdk' },
          { text: 'Chat: AG-UI (countersign/ui)', link: '/chat-ag-ui' },
          { text: 'Testing (countersign/testing)', link: '/testing' },
        ],
      },
      {
        text: 'Channels',
        items: [
          { text: 'Channels (countersign/channels)', link: '/channels/' },
          { text: 'Webhooks', link: '/channels/webhooks' },
          { text: 'Slack', link: '/channels/slack' },
          { text: 'Telegram', link: '/channels/telegram' },
          { text: 'Email', link: '/channels/email' },
          { text: 'Discord', link: '/channels/discord' },
        ],
      },
      {
        text: 'Models',
        items: [
          { text: 'Models and the Model port', link: '/models/' },
          { text: 'OpenAI', link: '/models/openai' },
          { text: 'Anthropic', link: '/models/anthropic' },
          { text: 'AI SDK', link: '/models/ai-sdk' },
        ],
      },
      {
        text: 'Architecture',
        items: [
          { text: 'The rooms of src/', link: '/architecture/' },
          { text: 'Run lifecycle', link: '/architecture/run-lifecycle' },
          { text: 'Compare-and-set and the outbox', link: '/architecture/compare-and-set' },
          { text: 'The store contract', link: '/architecture/store-contract' },
          { text: 'Why compile-machine.ts', link: '/architecture/compile-machine' },
        ],
      },
    ],
  },
});
