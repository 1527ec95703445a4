// A module resolve hook that fails any import of the optional peer dependencies,
// so a test can prove that `import 'countersign'` needs none of them. The peer
// named in COUNTERSIGN_ALLOW_PEER (the one a subpath is made for) may load.
import { register } from 'node:module';

const allowed = process.env.COUNTERSIGN_ALLOW_PEER ?? '';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        const allowed = ${JSON.stringify(allowed)};
        const peer = allowed !== '' && (specifier === allowed || specifier.startsWith(allowed + '/'));
        if (!peer && /^(ioredis|hono|@hono\\/node-server|nodemailer|ai|@ai-sdk\\/[^/]+|@modelcontextprotocol\\/sdk|@anthropic-ai\\/claude-agent-sdk|@opentelemetry\\/api|@ag-ui\\/[^/]+)(\\/|$)/.test(specifier)) {
          throw new Error('optional peer dependency loaded: ' + specifier);
        }
        return next(specifier, context);
      }
    `),
);
