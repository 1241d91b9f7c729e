// Requests as Slack sends them to an app: a body (built in payloads.ts),
// signed with the app's signing secret (v0 = HMAC-SHA256 of
// `v0:<timestamp>:<raw body>`), with Slack's headers, and optionally marked as
// a retry. Can also sign stale or wrongly, to test that the app refuses them.
import { createHmac } from 'node:crypto';
import { SLACK_DEFAULTS } from './defaults.ts';
import type { SlackRequestBody } from './payloads.ts';

export * from './payloads.ts';

/** Slack's documented retry reasons (x-slack-retry-reason). */
export type SlackRetryReason =
  | 'http_timeout'
  | 'too_many_redirects'
  | 'connection_failed'
  | 'ssl_error'
  | 'http_error'
  | 'unknown_error';

export interface SignOptions {
  /** The app's signing secret (default SLACK_DEFAULTS.signingSecret). */
  signingSecret?: string;
  /** Request time in seconds since the epoch; default now (Date.now, so fake timers apply). */
  timestamp?: number;
  /** Sign with a timestamp ten minutes old: past Slack's five-minute window. */
  stale?: boolean;
  /** Sign with a secret other than the app's. */
  wrongSecret?: boolean;
  /** Mark as Slack's n-th redelivery of the same event. */
  retry?: { num: number; reason?: SlackRetryReason };
}

export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

/** `v0=<hex>`: the x-slack-signature for this body and timestamp. */
export function slackSignature(signingSecret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

/** Headers and body for a request as Slack would send it. */
export function signRequest(request: SlackRequestBody, options: SignOptions = {}): SignedRequest {
  const now = Math.floor(Date.now() / 1000);
  const timestamp = options.timestamp ?? (options.stale ? now - 10 * 60 : now);
  const secret = options.signingSecret ?? SLACK_DEFAULTS.signingSecret;
  const headers: Record<string, string> = {
    'content-type': request.contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(
      options.wrongSecret ? `${secret}-not-the-secret` : secret,
      timestamp,
      request.body,
    ),
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
  };
  if (options.retry) {
    headers['x-slack-retry-num'] = String(options.retry.num);
    headers['x-slack-retry-reason'] = options.retry.reason ?? 'http_timeout';
  }
  return { headers, body: request.body };
}

/** Sign a request and POST it to the app's Slack endpoint (e.g. http://127.0.0.1:PORT/slack/events). */
export function postSigned(url: string, request: SlackRequestBody, options: SignOptions = {}): Promise<Response> {
  const { headers, body } = signRequest(request, options);
  return fetch(url, { method: 'POST', headers, body });
}
