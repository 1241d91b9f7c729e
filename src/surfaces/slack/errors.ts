import { webApi } from '@slack/bolt';
import { DeliveryError, jobErrorFor, type DeliveryFailure } from '../../core/delivery/failure.ts';

/** A failed Web API call as delivery sees it; this file is the one place Slack's errors are translated. */
export type SlackFailure = DeliveryFailure &
  ({ kind: 'rate_limited'; afterMs: number } | { kind: 'permanent' | 'transient' });

/** Platform errors that retrying cannot fix, with a sentence an agent or admin can act on. */
const PERMANENT: Record<string, string> = {
  channel_not_found: 'the channel no longer exists, or the Switchboard app cannot see it',
  not_in_channel:
    'the Switchboard app is not a member of that channel; someone in it must invite it (`/invite @Switchboard`)',
  is_archived: 'the channel is archived',
  account_inactive: "the Slack app's token belongs to a deactivated account; an admin must reinstall the app",
  invalid_auth:
    "the Slack app's token is not valid; an admin must reinstall the app or run `switchboard slack connect` again",
  token_revoked:
    "the Slack app's token was revoked (the app was uninstalled); an admin must install it again and run `switchboard slack connect` (see docs/surfaces/slack.md)",
  not_authed: 'no Slack token was available; an admin must install or connect the app',
  missing_scope: 'the Slack app lacks a permission it needs; an admin must reinstall it from manifests/slack.yaml',
  msg_too_long: 'the message is longer than Slack accepts; split it',
  no_text: 'the message was empty',
  restricted_action: "the Slack workspace's settings do not allow the app to post there",
  cannot_reply_to_message: 'Slack does not allow replies to that message',
};

/**
 * A post or call for a team Switchboard holds no install of (the app was uninstalled, or its bot token revoked):
 * a permanent failure, saying how to connect the team again.
 */
export const notInstalled = (teamId: string | undefined) =>
  new DeliveryError({
    kind: 'permanent',
    code: 'not_installed',
    reason:
      `Switchboard is no longer installed in the Slack team ${teamId ?? '(unknown)'} (the app was uninstalled or its token revoked), so nothing is posted there; ` +
      `an admin must install the app again (through /slack/install, or from the Slack app's Install App page) and run \`switchboard slack connect WORKSPACE --team-id ${teamId ?? 'T…'}\` (with --bot-token xoxb-… when not installed through /slack/install)`,
  });

/** Refusals that say the channel is gone for the app: deleted (or out of its sight), or archived. */
const PLACE_GONE = new Set(['channel_not_found', 'is_archived']);

/** Platform errors that are Slack's own trouble and pass with time. */
const TRANSIENT = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
  'team_added_to_org',
]);

export function classifySlackError(e: unknown): SlackFailure {
  const code = (e as { code?: string } | null)?.code;
  switch (code) {
    case webApi.ErrorCode.RateLimitedError: {
      const seconds = (e as webApi.WebAPIRateLimitedError).retryAfter;
      return {
        kind: 'rate_limited',
        afterMs: Math.max(1, Number(seconds) || 1) * 1000,
        reason: `Slack asked to wait ${seconds}s (HTTP 429)`,
      };
    }
    case webApi.ErrorCode.PlatformError: {
      const error = String((e as webApi.WebAPIPlatformError).data?.error ?? 'unknown_error');
      if (TRANSIENT.has(error)) return { kind: 'transient', reason: `Slack answered ${error}` };
      return {
        kind: 'permanent',
        code: error,
        reason: PERMANENT[error] ?? `Slack refused it (${error})`,
        ...(PLACE_GONE.has(error) ? { placeGone: true } : {}),
      };
    }
    case webApi.ErrorCode.HTTPError:
      return { kind: 'transient', reason: `Slack answered HTTP ${(e as webApi.WebAPIHTTPError).statusCode}` };
    case webApi.ErrorCode.RequestError:
      return {
        kind: 'transient',
        reason: `Slack could not be reached: ${(e as webApi.WebAPIRequestError).original?.message ?? 'network error'}`,
      };
    default:
      return { kind: 'transient', reason: e instanceof Error ? e.message : String(e) };
  }
}

const isWebApiError = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('slack_');
};

/**
 * What a job should throw for `e`: a Web API error as the queue reads it (Slack down or asking to wait: retried
 * until the job is too old; a refusal: stopped at once); anything else unchanged.
 */
export const asJobError = (e: unknown): unknown => (isWebApiError(e) ? jobErrorFor(classifySlackError(e)) : e);

/**
 * An error as it may be logged: the Web API client's network errors wrap the
 * HTTP request, Authorization header included, so they are never logged whole.
 */
export function loggable(e: unknown): Record<string, unknown> {
  if (isWebApiError(e)) return { code: (e as { code: string }).code, reason: classifySlackError(e).reason };
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack };
  return { message: String(e) };
}
