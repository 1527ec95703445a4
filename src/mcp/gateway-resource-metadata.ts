// The gateway's OAuth protected resource metadata (RFC 9728), as the MCP authorization specification asks a server
// to publish it: where it lives for the gateway's resource URL, what it says, and the WWW-Authenticate challenge
// that points a client to it.
import type { McpGatewayOAuth } from './gateway-options.js';

/** The metadata's path for `resource`: the well-known prefix, then the resource's own path (`/mcp`). */
export function metadataPath(resource: string): string {
  const { pathname } = new URL(resource);
  return `/.well-known/oauth-protected-resource${pathname === '/' ? '' : pathname}`;
}

/** The challenge of a 401: a bare `Bearer`, or one that names the metadata (and the token's fault, when one was sent). */
export function bearerChallenge(oauth: McpGatewayOAuth | undefined, tokenSent: boolean): string {
  if (oauth === undefined) return 'Bearer';
  const metadata = `${new URL(oauth.resource).origin}${metadataPath(oauth.resource)}`;
  return `Bearer resource_metadata="${metadata}"${tokenSent ? ', error="invalid_token"' : ''}`;
}

/** The metadata document, public (it names no secret), as JSON. */
export function metadataResponse(oauth: McpGatewayOAuth): Response {
  return Response.json(
    {
      resource: oauth.resource,
      authorization_servers: oauth.authorizationServers,
      bearer_methods_supported: ['header'],
      ...(oauth.scopesSupported === undefined ? {} : { scopes_supported: oauth.scopesSupported }),
    },
    { headers: { 'cache-control': 'max-age=300' } },
  );
}
