// Chat buttons whose payload is too small for a token (Telegram's callback_data is 64 bytes, Discord's custom_id
// 100 characters) carry a random short id instead; the OnceStore maps it to the token until the token expires.
import { randomBytes } from 'node:crypto';
import type { ApprovalLinkTokens, OnceStore } from '../index.js';

/** The short id of each token there is (a decision the request does not offer has no token, so no id). */
export type ButtonIds = Readonly<Partial<Record<'approve' | 'approveForRun' | 'deny', string>>>;

/** A short id matches this: 22 base64url characters (16 random bytes). */
const BUTTON_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

const keyOf = (channel: string, id: string) => `${channel}:button:${id}`;

/** Keeps each token there is under a fresh short id until `tokens.expiresAt`; returns the ids. */
export async function storeButtonIds(
  once: OnceStore,
  channel: string,
  tokens: ApprovalLinkTokens,
  now: number,
): Promise<ButtonIds> {
  const ttl = Math.max(1000, tokens.expiresAt - now);
  const ids: Partial<Record<keyof ButtonIds, string>> = {};
  for (const which of ['approve', 'approveForRun', 'deny'] as const) {
    const token = tokens[which];
    if (token === undefined) continue;
    ids[which] = randomBytes(16).toString('base64url');
    await once.putIfAbsent(keyOf(channel, ids[which]), token, ttl);
  }
  return ids;
}

/** The token a short id stands for, or undefined for an unknown or expired one. */
export async function tokenOfButton(once: OnceStore, channel: string, id: string): Promise<string | undefined> {
  if (!BUTTON_ID_PATTERN.test(id)) return undefined;
  return once.get(keyOf(channel, id));
}
