// Links to the messages people write in Slack. Slack links a message as
// `<team URL>archives/<channel>/p<ts without its dot>`, with `?thread_ts=<root>&cid=<channel>`
// for a reply in a thread, so the team's URL is read once (auth.test) and every link is built
// from it: no Slack call per message on its way to the agent's inbox. When the URL cannot be
// read, chat.getPermalink asks Slack for the one link instead.
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { loggable } from './errors.ts';

export class SlackPermalinks {
  private readonly teamUrls = new Map<string, Promise<string | null>>();

  constructor(private readonly logger: Logger) {}

  /** The link to message `ts` in `channel` (in the thread of `threadTs`, when that is another message); null when Slack gives none. */
  async of(
    client: webApi.WebClient,
    teamId: string,
    channel: string,
    ts: string,
    threadTs?: string,
  ): Promise<string | null> {
    const base = await this.teamUrl(client, teamId);
    if (base) return messageLink(base, channel, ts, threadTs);
    try {
      return (await client.chat.getPermalink({ channel, message_ts: ts })).permalink ?? null;
    } catch (err) {
      this.logger.warn({ err: loggable(err), channel, ts }, 'could not get a Slack permalink');
      return null;
    }
  }

  /** The team's https URL, read once per team; a failed read is not kept, so the next message tries again. */
  private teamUrl(client: webApi.WebClient, teamId: string): Promise<string | null> {
    let url = this.teamUrls.get(teamId);
    if (!url) {
      url = client.auth.test().then(
        (r) => httpsBase(r.url),
        (err: unknown) => {
          this.logger.warn(
            { err: loggable(err), teamId },
            'could not read the Slack team URL; asking for each permalink instead',
          );
          return null;
        },
      );
      this.teamUrls.set(teamId, url);
      void url.then((u) => {
        if (!u) this.teamUrls.delete(teamId);
      });
    }
    return url;
  }
}

/** Slack's link to a message, from the team's URL (ending in `/`). */
export function messageLink(base: string, channel: string, ts: string, threadTs?: string): string {
  const link = `${base}archives/${encodeURIComponent(channel)}/p${ts.replace('.', '')}`;
  return threadTs && threadTs !== ts
    ? `${link}?thread_ts=${encodeURIComponent(threadTs)}&cid=${encodeURIComponent(channel)}`
    : link;
}

/** The URL with a trailing slash when it is an https URL; null otherwise (never a link to anything else). */
function httpsBase(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'https:') return null;
    return u.href.endsWith('/') ? u.href : `${u.href}/`;
  } catch {
    return null;
  }
}
