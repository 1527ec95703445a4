import type { RespondResult } from '../index.js';

/** The `vote` field of a decision's JSON answer: where the votes stand on a quorum request, nothing otherwise. */
export function voteOf(result: Pick<RespondResult, 'vote'>): { readonly vote?: NonNullable<RespondResult['vote']> } {
  return result.vote === undefined ? {} : { vote: result.vote };
}
