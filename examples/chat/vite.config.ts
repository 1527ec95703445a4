// The example chat page's build: React with the AI SDK's useChat, served by server.ts under /chat/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: `${here}web`,
  base: '/chat/',
  build: { outDir: `${here}dist`, emptyOutDir: true },
  oxc: { jsx: { runtime: 'automatic' } },
});
