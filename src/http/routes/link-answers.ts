import type { Context } from 'hono';
import { type Markup, classifyRefusal, refusalReply, HttpProblem, problem, problemFor } from '../../kit/index.js';
import { isCountersignError } from '../../errors.js';
import type { AppEnv } from '../app-env.js';
import { LINK_PAGE_HEADERS, messagePage } from '../link-pages.js';
import type { RouteSettings } from './route-settings.js';

/** An HTML page with the link pages' headers (no framing, no referrer, no caching). */
export const linkPage = (c: Context<AppEnv>, status: number, html: string) =>
  c.newResponse(html, status as 200, LINK_PAGE_HEADERS);

/** The token of a link or inbox URL; a malformed one (oversized included) reads as a bad link, not as a configuration error. */
export function linkToken(c: Context<AppEnv>): string {
  const token = c.req.param('token') ?? '';
  if (!/^[A-Za-z0-9_-]{1,4000}\.[A-Za-z0-9_-]{1,100}$/.test(token))
    throw new HttpProblem(
      problem(401, 'invalid_link_token', 'This approval link is malformed; open the link exactly as it was sent.', {
        reason: 'malformed',
      }),
    );
  return token;
}

/** How the link pages write the wording every channel shares: plain text (the page escapes it), deciders by name. */
export const pageMarkup: Markup = {
  escape: (text) => text,
  strong: (text) => text,
  code: (text) => text,
  who: (by) => by ?? 'someone',
};

/**
 * A failure of a link or inbox page, told as a page a person reads (with the problem's status and headers), in the
 * words every channel uses for the same refusal; an unexpected one is reported.
 */
export async function linkFailure(
  c: Context<AppEnv>,
  error: unknown,
  settings: Pick<RouteSettings, 'report' | 'runtime'>,
): Promise<Response> {
  if (isCountersignError(error) && error.code === 'links_not_configured') {
    return linkPage(
      c,
      404,
      messagePage('Links are not enabled', 'This server does not serve one-click approval links.'),
    );
  }
  const answer = problemFor(error);
  if (answer.unexpected) settings.report(error, { operation: 'request', method: c.req.method, path: c.req.routePath });
  const title =
    answer.problem.code === 'invalid_link_token'
      ? 'This link cannot be used'
      : answer.problem.code === 'decision_conflict'
        ? 'Already decided'
        : answer.problem.status >= 500
          ? 'Something went wrong'
          : 'This approval cannot be decided';
  const refusal = await classifyRefusal(settings.runtime, error);
  const detail = answer.unexpected
    ? 'The decision was not recorded. Try the link again later.'
    : refusal.kind === 'unexpected'
      ? answer.problem.detail
      : refusalReply(refusal, 'You', 'links', pageMarkup).text;
  const response = linkPage(c, answer.problem.status, messagePage(title, detail));
  for (const [name, value] of Object.entries(answer.headers)) response.headers.set(name, value);
  return response;
}
