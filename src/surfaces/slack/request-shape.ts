// What a signed Slack request must look like before it is stored: a request
// that can never be handled (a body that is not an object, an event that is
// not one, a channel id or message timestamp that is no such thing, absurd
// sizes or nesting) is refused at the gate with 400 and a sentence, instead
// of being stored, acknowledged and then retried until it fails for good.
// Only what Switchboard reads is checked; everything else passes as it is.
import { z } from 'zod';

/** Deeper than any payload Slack sends (blocks nest a few levels); deeper bodies are refused before anything walks them. */
export const MAX_DEPTH = 40;

/** Slack's ids: channels (C…, D…, G…), users (U…, W…), teams (T…), enterprises (E…), apps (A…), bots (B…). */
const slackId = z
  .string()
  .regex(/^[A-Z0-9][A-Z0-9_-]{1,63}$/, 'is not a Slack id (capital letters and digits, such as C0123ABCD)');
/** A message timestamp, which is also its id: seconds, a dot, a sequence (`1710000000.000100`). */
const messageTs = z
  .string()
  .regex(/^\d{1,12}\.\d{1,9}$/, 'is not a Slack message timestamp (such as 1710000000.000100)');

/** Fields read where they are strings; an object in their place (a `channel` of channel_created) is checked elsewhere or not read. */
const idOrOther = z.union([slackId, z.record(z.string(), z.unknown()), z.null()]).optional();
const tsOrOther = z.union([messageTs, z.null()]).optional();

const event = z.looseObject({
  type: z.string().min(1, 'is empty').max(128, 'is longer than any event type'),
  channel: idOrOther,
  user: idOrOther,
  ts: tsOrOther,
  thread_ts: tsOrOther,
  event_ts: tsOrOther,
});

const eventCallback = z.looseObject({
  type: z.literal('event_callback'),
  event_id: z
    .string()
    .min(1, 'is empty')
    .max(128, 'is longer than any Slack event id')
    .regex(/^[A-Za-z0-9._-]+$/, 'is not a Slack event id (such as Ev0123ABCD)'),
  team_id: slackId.optional(),
  event,
});

const interaction = z.looseObject({
  type: z.string().min(1, 'is empty').max(128, 'is longer than any interaction type'),
  team: z.looseObject({ id: slackId }).nullish(),
  user: z.looseObject({ id: slackId }).nullish(),
  channel: z.looseObject({ id: slackId }).nullish(),
  container: z
    .looseObject({ channel_id: slackId.optional(), message_ts: messageTs.optional(), thread_ts: messageTs.optional() })
    .nullish(),
  message: z.looseObject({ ts: messageTs.optional(), thread_ts: messageTs.optional() }).nullish(),
});

const command = z.looseObject({
  command: z.string().regex(/^\/[\w-]{1,64}$/, 'is not a slash command (such as /switchboard)'),
  team_id: slackId,
  user_id: slackId,
  channel_id: slackId,
});

/** The depth of the deepest value, stopping as soon as it passes `limit` (a hostile body is not walked whole). */
function deeperThan(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length; depth++) {
    if (depth > limit) return true;
    const next: unknown[] = [];
    for (const v of level) if (v && typeof v === 'object') for (const inner of Object.values(v)) next.push(inner);
    level = next;
  }
  return false;
}

/** Why Switchboard can never handle this signed Slack request (a sentence for the 400), or null when it may be stored. */
export function slackRequestRefusal(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return `The request body must be a JSON object or a form, as Slack sends; this one is ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}.`;
  if (deeperThan(body, MAX_DEPTH))
    return `The request body nests more than ${MAX_DEPTH} levels deep; Slack sends none such.`;
  const b = body as Record<string, unknown>;
  const schema =
    b.type === 'event_callback'
      ? eventCallback
      : typeof b.command === 'string'
        ? command
        : 'payload' in b
          ? null
          : interaction;
  if (schema === null) return 'The form field `payload` must hold a JSON object, as Slack sends for interactions.';
  // url_verification and ssl_check are Bolt's own; they carry none of what is read here.
  if (b.type === 'url_verification' || b.ssl_check) return null;
  const parsed = schema.safeParse(b);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const where = issue.path.map(String).join('.') || 'the body';
  return `The request's \`${where}\` ${issue.code === 'invalid_type' ? `is missing or of the wrong type (${issue.message})` : issue.message}; Slack sends no such request.`;
}
