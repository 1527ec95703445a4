import { Hono } from 'hono';
import { requireLinks } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { inboxPage } from '../link-pages.js';
import { linkFailure, linkPage, linkToken } from './link-answers.js';
import type { RouteSettings } from './route-settings.js';

/** `GET /inbox/:token`: a reviewer's pending approvals, each with its Approve and Deny buttons; the token is the credential. */
export function inboxRoutes({ runtime, report }: RouteSettings): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/inbox/:token', async (c) => {
    try {
      const token = linkToken(c);
      const cursor = c.req.query('cursor');
      const agent = c.req.query('agent');
      const page = await requireLinks(runtime, 'GET /inbox').reviewInbox(token, {
        limit: 50,
        ...(cursor === undefined ? {} : { cursor }),
        ...(agent === undefined ? {} : { agent }),
      });
      const next =
        page.cursor === undefined
          ? undefined
          : `./${token}?cursor=${encodeURIComponent(page.cursor)}${agent === undefined ? '' : `&agent=${encodeURIComponent(agent)}`}`;
      // Relative form targets, like the link pages', so the app can be mounted under a prefix.
      const linkPath = (linkToken: string) => `../links/${linkToken}`;
      return linkPage(c, 200, inboxPage(page, { ...(next === undefined ? {} : { next }), linkPath }));
    } catch (error) {
      return linkFailure(c, error, { report, runtime });
    }
  });
  return app;
}
