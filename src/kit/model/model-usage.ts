import type { Usage } from '../../run/types.js';

/** The counts a provider reported, those it left out (null or undefined) dropped; undefined when it reported none. */
export function usageOf(counts: { readonly [Count in keyof Usage]-?: number | null | undefined }): Usage | undefined {
  const reported = Object.entries(counts).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
  return reported.length === 0 ? undefined : (Object.fromEntries(reported) as Usage);
}
