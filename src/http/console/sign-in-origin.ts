import type { Context } from 'hono';
import { HttpProblem, problem } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';

/** `Sec-Fetch-Site` values of a request a person made on this console, or typed into the address bar. */
const OWN = new Set(['same-origin', 'none']);

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

/**
 * Refuses a sign-in another site's page sent (login CSRF: a cross-site form would sign the person's browser in as
 * someone else, whose decisions they would then record). Browsers say where a request came from in `Sec-Fetch-Site`
 * (every current one) or else `Origin`; only this console's own origin may sign in. A request with neither is not
 * from a browser's form (curl, a test client) and has no victim's cookies to set, so it is let through, as the
 * app's writes with a token are.
 */
export function checkSignInOrigin(c: Context<AppEnv>): void {
  const site = c.req.header('sec-fetch-site');
  const origin = c.req.header('origin');
  let own: boolean;
  if (site !== undefined) own = OWN.has(site.trim().toLowerCase());
  else if (origin !== undefined) {
    // A proxy may hand the app another host than the browser used; the forwarded one is only ever used to allow.
    const hosts = [hostOf(c.req.url), c.req.header('x-forwarded-host')?.split(',')[0]?.trim()];
    const from = origin === 'null' ? undefined : hostOf(origin);
    own = from !== undefined && hosts.includes(from);
  } else own = true;
  if (!own) {
    throw new HttpProblem(
      problem(
        403,
        'cross_site_sign_in',
        "A sign-in must come from this console's own page (Sec-Fetch-Site or Origin named another site); open the console's address and sign in there.",
      ),
    );
  }
}
