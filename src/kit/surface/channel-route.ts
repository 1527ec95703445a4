/**
 * A Fetch-standard request handler a channel offers (Slack's interactivity
 * URL, Telegram's webhook, Discord's interactions endpoint), with the method
 * and path it expects. Mount it in any framework that speaks `Request` and
 * `Response`, or pass it to `createApprovalApp(runtime, { channels: [route] })`.
 *
 * @example
 * const route: ChannelRoute = createSlackActions({ runtime, signingSecret });
 * app.post(route.path, (c) => route.fetch(c.req.raw)); // Hono; or Bun.serve({ fetch: route.fetch })
 */
export interface ChannelRoute {
  readonly method: 'POST';
  /** Where it is mounted by default, e.g. `/slack/actions`. */
  readonly path: string;
  /**
   * Answers one request. `waitUntil`, where the platform has one (a
   * serverless function's execution context), keeps background work alive
   * after the answer.
   */
  fetch(request: Request, context?: { readonly waitUntil?: (work: Promise<unknown>) => void }): Promise<Response>;
}
