// Slack's request signing (v0): X-Slack-Signature is `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<raw body>`
// under the app's signing secret; X-Slack-Request-Timestamp must be within five minutes of the server's clock. The
// headers are checked before the body is read, the signature in constant time against every secret given.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpProblem, problem } from '../../kit/index.js';

/** Slack's tolerance for request timestamps, either way. */
const TOLERANCE_SECONDS = 300;

function refused(detail: string, reason: string): HttpProblem {
  return new HttpProblem(
    problem(401, 'invalid_slack_signature', `The Slack request signature was refused: ${detail}.`, { reason }),
  );
}

/** The signed headers of `request`, checked against the clock; throws a 401 problem. */
export function signedHeaders(
  request: Request,
  nowSeconds: number,
): { readonly timestamp: string; readonly signature: string } {
  const timestamp = request.headers.get('x-slack-request-timestamp');
  const signature = request.headers.get('x-slack-signature');
  if (!timestamp || !signature)
    throw refused('X-Slack-Request-Timestamp and X-Slack-Signature are both required', 'missing_headers');
  if (!/^\d{1,15}$/.test(timestamp))
    throw refused('X-Slack-Request-Timestamp must be whole seconds since the epoch', 'bad_timestamp');
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw refused(
      `X-Slack-Request-Timestamp is more than ${TOLERANCE_SECONDS} s away from the server clock`,
      'stale_timestamp',
    );
  }
  return { timestamp, signature };
}

/** Checks the signature over the raw body against every secret (two while one is regenerated); throws a 401 problem. */
export function verifySignature(
  secrets: readonly string[],
  headers: { readonly timestamp: string; readonly signature: string },
  body: string,
): void {
  const offered = /^v0=([0-9a-f]{64})$/.exec(headers.signature);
  const presented = Buffer.from(offered?.[1] ?? '0'.repeat(64), 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`v0:${headers.timestamp}:${body}`).digest();
    ok = timingSafeEqual(presented, expected) || ok;
  }
  if (!offered || !ok) throw refused('no v0 signature matches the raw body', 'bad_signature');
}
