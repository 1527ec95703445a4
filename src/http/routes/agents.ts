import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { RouteSettings } from './route-settings.js';

/** `GET /agents/:agent/tools`: an agent's tools as the model sees them (name, description, JSON Schema of the input), e.g. to check an edit before sending it. */
export function agentRoutes({ runtime, read }: RouteSettings): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/agents/:agent/tools', read, (c) => {
    const agent = runtime.agent(c.req.param('agent'));
    return c.json({ agent: agent.name, tools: agent.settings.specs });
  });
  return app;
}
