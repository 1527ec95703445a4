import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, webhookSignature } from 'countersign/webhooks';

// The known-answer vector of the Standard Webhooks specification.
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const headersOf = (
  signature: string,
  timestamp = String(vector.timestamp),
  id: string | undefined = vector.id,
): { id: string | undefined; timestamp: string; signature: string } => ({ id, timestamp, signature });

describe('Standard Webhooks signatures', () => {
  it('reproduces the specification known-answer vector', () => {
    expect(webhookSignature(vector.secret, vector.id, vector.timestamp, vector.body)).toBe(vector.signature);
    expect(verifyWebhook([vector.secret], headersOf(vector.signature), vector.body, vector.timestamp)).toBeUndefined();
  });

  it('signs what the standardwebhooks library verifies, and verifies what it signs', () => {
    const library = new Webhook(vector.secret);
    const body = JSON.stringify({ approved: true });
    const now = Math.floor(Date.now() / 1000);
    const ours = signWebhook(vector.secret, 'msg_ours', now, body);
    expect(library.verify(body, ours)).toEqual({ approved: true });
    const theirs = library.sign('msg_theirs', new Date(now * 1000), body);
    expect(verifyWebhook([vector.secret], headersOf(theirs, String(now), 'msg_theirs'), body, now)).toBeUndefined();
  });

  it('accepts any of several secrets and any of several signatures, for key rotation', () => {
    const rotated = `whsec_${Buffer.from('a new key of thirty-two bytes!!!').toString('base64')}`;
    const both = `v1,AAAA ${vector.signature}`;
    expect(verifyWebhook([rotated, vector.secret], headersOf(both), vector.body, vector.timestamp)).toBeUndefined();
  });

  it('refuses missing, wrong, truncated and stale signatures', () => {
    const check = (headers: ReturnType<typeof headersOf>, now = vector.timestamp) =>
      verifyWebhook([vector.secret], headers, vector.body, now);
    expect(check(headersOf(''))).toBe('missing_headers');
    expect(check({ ...headersOf(vector.signature), id: undefined })).toBe('missing_headers');
    expect(check(headersOf(`v1,${Buffer.alloc(32).toString('base64')}`))).toBe('bad_signature');
    expect(check(headersOf(vector.signature.slice(0, -6)))).toBe('bad_signature');
    expect(check(headersOf(vector.signature.replace('v1,', 'v2,')))).toBe('bad_signature');
    expect(check(headersOf(vector.signature, 'soon'))).toBe('bad_timestamp');
    expect(check(headersOf(vector.signature), vector.timestamp + 301)).toBe('stale_timestamp');
    expect(check(headersOf(vector.signature), vector.timestamp - 301)).toBe('stale_timestamp');
    expect(check(headersOf(vector.signature), vector.timestamp + 300)).toBeUndefined();
    expect(verifyWebhook([vector.secret], headersOf(vector.signature), `${vector.body} `, vector.timestamp)).toBe(
      'bad_signature',
    );
  });
});
