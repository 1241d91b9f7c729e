/**
 * Where a Slack conversation lives: a team, a channel (or DM), and the thread's
 * root ts (absent for a DM talked in without threads). The conversation key
 * `slack:T…:C…:1710000000.000100` (or `slack:T…:D…` for a DM) finds it again.
 */
export interface SlackThread {
  team: string;
  channel: string;
  thread_ts?: string;
}

const ID = /^[A-Z0-9]+$/;
const TS = /^\d+\.\d+$/;

/** `slack:T:C:ts` for a thread, `slack:T:D` for a whole DM; throws on ids Slack never issues. */
export function encodeThreadKey(t: SlackThread): string {
  if (!ID.test(t.team) || !ID.test(t.channel) || (t.thread_ts !== undefined && !TS.test(t.thread_ts))) {
    throw new Error(`not a Slack thread address: ${JSON.stringify(t)}`);
  }
  return t.thread_ts ? `slack:${t.team}:${t.channel}:${t.thread_ts}` : `slack:${t.team}:${t.channel}`;
}

/** The thread a key names; null when the key is not a Slack one. */
export function decodeThreadKey(key: string): SlackThread | null {
  const [prefix, team, channel, threadTs, ...rest] = key.split(':');
  if (prefix !== 'slack' || rest.length || !team || !channel || !ID.test(team) || !ID.test(channel)) return null;
  if (threadTs === undefined) return { team, channel };
  return TS.test(threadTs) ? { team, channel, thread_ts: threadTs } : null;
}

/** The conversation's `externalRef` for a thread (plain strings, as the store keeps it). */
export function threadRef(t: SlackThread): Record<string, string> {
  return t.thread_ts
    ? { team: t.team, channel: t.channel, thread_ts: t.thread_ts }
    : { team: t.team, channel: t.channel };
}

/** The thread back from an `externalRef`; null when it is not a Slack address. */
export function threadFromRef(ref: Record<string, string> | null): SlackThread | null {
  if (!ref?.team || !ref.channel) return null;
  return ref.thread_ts
    ? { team: ref.team, channel: ref.channel, thread_ts: ref.thread_ts }
    : { team: ref.team, channel: ref.channel };
}
