// The options of createSlackActions, checked at the boundary, and what its onError hears.
import { z } from 'zod';
import type { LinkedRuntime, ResumeMode } from '../../index.js';
import { functionSchema, httpUrlSchema, optionsObject, answerOptionsShape } from '../../kit/index.js';
import { linkedRuntimeSchema } from '../channel-options.js';
import { DEFAULT_API_URL, SLACK_TOKEN_PATTERN } from './slack-api.js';

/**
 * What `createSlackActions` was doing when something failed: `click` (an unexpected refusal), `resume` (a run that
 * went on after the answer), `response` (the answer could not be posted to response_url), `modal` (the deny modal
 * could not be opened), `request` (an unexpected error answering Slack).
 *
 * @example
 * createSlackActions({ runtime, signingSecret, onError: (error, { operation, runId }) => log.warn({ err: error, operation, runId }) });
 */
export interface SlackActionsErrorContext {
  readonly operation: 'click' | 'resume' | 'response' | 'modal' | 'request';
  readonly runId?: string;
}

/**
 * Options of `createSlackActions`.
 *
 * @example
 * const options: SlackActionsOptions = { runtime, signingSecret: process.env.SLACK_SIGNING_SECRET!, token: process.env.SLACK_BOT_TOKEN! };
 */
export interface SlackActionsOptions {
  /** Decides the clicks: a runtime made with `createRuntime({ links: { secret } })`. */
  readonly runtime: LinkedRuntime;
  /** The Slack app's signing secret (Basic Information → App Credentials); two while you regenerate it. */
  readonly signingSecret: string | readonly string[];
  /** A bot token (`xoxb-...`): Deny then opens a modal asking why (`views.open`). Without it, Deny decides at once. */
  readonly token?: string;
  /** Slack's Web API base. Default `https://slack.com/api`. */
  readonly apiUrl?: string;
  /** Origins a payload's `response_url` may point to; others are never called. Default `['https://hooks.slack.com']`. */
  readonly responseUrlOrigins?: readonly string[];
  /** `inline` (default) resumes the run here for up to `resumeTimeoutMs` before answering; `enqueue` leaves it to a worker; `record` to another process that follows the run (see `ResumeMode`). */
  readonly resumeMode?: ResumeMode;
  /** How long an inline resume is waited for before the answer says the run is carrying on. Default 10,000 ms. */
  readonly resumeTimeoutMs?: number;
  /** Largest body read (Slack sends the whole card with a click). Default 256 KiB. */
  readonly maxBodyBytes?: number;
  /** Epoch milliseconds, for Slack's request timestamps. Default `Date.now`. */
  readonly clock?: () => number;
  /** Used for response_url and views.open. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Failures nobody was told about; their messages hold no secret and no URL (only its origin). */
  readonly onError?: (error: unknown, context: SlackActionsErrorContext) => void;
}

const signingSecretSchema = z
  .string()
  .min(16, "must be the Slack app's signing secret (Basic Information → App Credentials)");
export const optionsSchema = optionsObject({
  ...answerOptionsShape,
  runtime: linkedRuntimeSchema,
  signingSecret: z.union([signingSecretSchema, z.array(signingSecretSchema).min(1).max(2)]),
  token: z.string().regex(SLACK_TOKEN_PATTERN, 'must be a Slack bot token (xoxb-...)').optional(),
  apiUrl: httpUrlSchema({ example: DEFAULT_API_URL, credential: 'token' }).optional(),
  responseUrlOrigins: z
    .array(httpUrlSchema({ example: 'https://hooks.slack.com', credential: 'signingSecret' }))
    .min(1)
    .optional(),
  clock: functionSchema().optional(),
  fetch: functionSchema().optional(),
  onError: functionSchema().optional(),
});
