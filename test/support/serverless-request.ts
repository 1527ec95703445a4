// One serverless invocation: a fresh process that knows only the Redis URL
// (REDIS_URL) and its key prefix (PREFIX), builds the agent, runtime and app,
// serves exactly one request through `app.fetch`, and exits. The request
// comes as JSON on stdin ({ method, url, headers, body }); the response goes
// to stdout as JSON ({ status, headers, body }).
import { Redis } from 'ioredis';
import { createRedisStore } from 'countersign/redis';
import { harness } from '../http/harness.js';

const env = process.env as Record<string, string>;
let input = '';
for await (const chunk of process.stdin) input += chunk;
const described = JSON.parse(input) as { method: string; url: string; headers: Record<string, string>; body?: string };

const redis = new Redis(env['REDIS_URL']!, { maxRetriesPerRequest: 1 });
try {
  const { app } = harness({ store: createRedisStore({ redis, prefix: env['PREFIX']! }), app: { clock: Date.now } });
  const response = await app.fetch(
    new Request(described.url, {
      method: described.method,
      headers: described.headers,
      ...(described.body === undefined ? {} : { body: described.body }),
    }),
  );
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  process.stdout.write(JSON.stringify({ status: response.status, headers, body: await response.text() }));
} finally {
  await redis.quit();
}
