/** Who a request was authenticated as. */
export type Caller =
  | { readonly kind: 'bearer' }
  | { readonly kind: 'webhook'; readonly webhookId: string }
  | { readonly kind: 'insecure' };

/** The Hono environment of the approval app: what middleware hands to routes. */
export interface AppEnv {
  Variables: {
    caller: Caller;
    /** The request body as text, read once (within the body limit) by the authentication middleware. */
    rawBody: string;
    /** The JSON text a route answered with (set by `answerJson`), kept as a delivery's answer without reading the response back. */
    answerText?: string;
  };
}
