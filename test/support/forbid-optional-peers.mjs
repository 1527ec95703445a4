// A module resolve hook that fails any import of the optional peer dependencies,
// so a test can prove that `import 'countersign'` needs none of them.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        if (/^(ioredis|hono|@hono\\/node-server|nodemailer|ai|@ai-sdk\\/[^/]+)(\\/|$)/.test(specifier)) {
          throw new Error('optional peer dependency loaded: ' + specifier);
        }
        return next(specifier, context);
      }
    `),
);
