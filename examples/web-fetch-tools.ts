// Seed 000's web-fetch tools: fetch_url asks a person only for a domain that is
// not on the allowlist, add_domain (which widens the allowlist for good) always
// asks. Where pages come from is passed in, so the examples fetch from a local
// server and never from the internet.
import { z } from 'zod';
import { defineTool, type AnyTool } from 'countersign';

/** Fetches a page's text; the examples route it to a loopback server. */
export type FetchPage = (url: URL, signal: AbortSignal) => Promise<string>;

const domainOf = (url: string) => new URL(url).hostname.toLowerCase();

/** fetch_url and add_domain over one allowlist (a set of lower-case host names the tools share). */
export function webFetchTools(allowlist: Set<string>, fetchPage: FetchPage): AnyTool[] {
  return [
    defineTool({
      name: 'fetch_url',
      description: 'Fetch a web page and return its text',
      input: z.object({ url: z.url({ protocol: /^https?$/ }) }),
      needsApproval: ({ url }) => {
        const domain = domainOf(url);
        return allowlist.has(domain)
          ? { required: false, reason: `Domain "${domain}" is on the allowlist.` }
          : { required: true, reason: `Domain "${domain}" is not on the allowlist. Approval required to fetch.` };
      },
      approvalPrompt: ({ url }) => `Fetch ${url}?`,
      // Approved once, the fetch goes ahead for this call only; the allowlist is unchanged.
      execute: async ({ url }, ctx) => ({ url, text: await fetchPage(new URL(url), ctx.signal) }),
    }),
    defineTool({
      name: 'add_domain',
      description: 'Add a domain to the fetch allowlist, so fetch_url reaches it without asking',
      input: z.object({ domain: z.string().regex(/^[a-z0-9.-]+$/i, 'a host name such as docs.example.com') }),
      needsApproval: () => ({
        required: true,
        reason: 'Adding a domain to the allowlist grants permanent fetch access.',
      }),
      approvalPrompt: ({ domain }) => `Allow fetch_url to reach ${domain} without asking?`,
      execute: ({ domain }) => {
        allowlist.add(domain.toLowerCase());
        return { allowed: [...allowlist].sort() };
      },
    }),
  ];
}
