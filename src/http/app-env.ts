/** Who a request was authenticated as. */
export type Caller =
  | { readonly kind: 'bearer' }
  /** A personal API token: whatever it decides is recorded as `person`. */
  | { readonly kind: 'person'; readonly person: string; readonly tokenId: string }
  | { readonly kind: 'webhook'; readonly webhookId: string }
  | { readonly kind: 'insecure' }
  /** A console session cookie (read routes only): `reviewer` is who signed in, `via` how (an inbox session reads only what the inbox shows). */
  | { readonly kind: 'console'; readonly reviewer: string; readonly via: 'token' | 'inbox' };

/** A signed delivery's webhook-id: how a route settles its claim with an answer, or claims it in its own commit. */
export interface DeliveryClaim {
  /** The `replaceIf` write (less its kind) that stores `body` (JSON, with `status`) as the delivery's answer. */
  settleWith(
    status: number,
    body: string,
  ): { readonly key: string; readonly expected: string; readonly value: string; readonly ttlMs: number };
  /** The `putIfAbsent` write (less its kind) that claims the id with `body` (JSON, with `status`) as its answer, in a commit (claims in commit only). */
  claimWith(status: number, body: string): { readonly key: string; readonly value: string; readonly ttlMs: number };
  /** The answer to a delivery whose id was found held with `held`: its answer replayed, or a 409. */
  answerHeld(held: string): Response;
  /** Claims the id now (claims in commit, for a route with nothing to commit): a repeat's answer, or undefined once held here. */
  claim(): Promise<Response | undefined>;
}

/** The Hono environment of the approval app: what middleware hands to routes. */
export interface AppEnv {
  Variables: {
    caller: Caller;
    /** The request body as text, read once (within the body limit) by the authentication middleware. */
    rawBody: string;
    /** The JSON text a route answered with (set by `answerJson`), kept as a delivery's answer without reading the response back. */
    answerText?: string;
    /** A signed delivery's webhook-id claim, which a route may settle in its own commit (then it sets `settled`). */
    delivery?: DeliveryClaim;
    /** True once a route settled `delivery` with its answer itself. */
    settled?: boolean;
  };
}
