import { Hono, type Context } from 'hono';
import type { ChannelRoute } from '../../kit/index.js';
import { ConfigError } from '../../errors.js';
import type { AppEnv } from '../app-env.js';

/** The platform's `waitUntil` (a serverless function's execution context), or none: on Node there is no execution context, and Hono throws when asked for it. */
function platformWaitUntil(c: Context<AppEnv>): ((work: Promise<unknown>) => void) | undefined {
  try {
    const context = c.executionCtx;
    return typeof context.waitUntil === 'function' ? (work) => context.waitUntil(work) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a route pattern of the app (`/runs/:runId`) answers a literal path. */
function patternServes(pattern: string, path: string): boolean {
  const expected = pattern.split('/');
  const actual = path.split('/');
  return (
    expected.length === actual.length &&
    expected.every((segment, index) => segment.startsWith(':') || segment === actual[index])
  );
}

/**
 * The channels' Fetch handlers, each at its path with its method. They check their own credentials (a platform's
 * signature or secret), so they get none of the app's guards; the app's security headers, body limit and error
 * answers still apply. A path two channels share, or one a route of the app already serves (`taken`), is a
 * `ConfigError` naming it.
 */
export function channelRoutes(
  channels: readonly ChannelRoute[],
  taken: readonly { readonly method: string; readonly path: string }[],
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const mounted = new Set<string>();
  for (const channel of channels) {
    if (mounted.has(channel.path)) {
      throw new ConfigError(
        `createApprovalApp: two channels are mounted at ${channel.path}; give one of them another path.`,
        'invalid_config',
      );
    }
    const clash = taken.find((route) => patternServes(route.path, channel.path));
    if (clash !== undefined) {
      throw new ConfigError(
        `createApprovalApp: the channel at ${channel.path} collides with the app's route ${clash.method} ${clash.path}; give the channel another path.`,
        'invalid_config',
      );
    }
    mounted.add(channel.path);
    app.on(channel.method, channel.path, (c) => {
      const waitUntil = platformWaitUntil(c);
      return channel.fetch(c.req.raw, waitUntil === undefined ? {} : { waitUntil });
    });
  }
  return app;
}
