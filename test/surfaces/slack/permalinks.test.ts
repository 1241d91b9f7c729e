// Links to people's Slack messages: built from the team's URL (read once), in Slack's
// own format; asked of chat.getPermalink only when the URL cannot be read.
import { webApi } from '@slack/bolt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackPermalinks } from '../../../src/surfaces/slack/permalinks.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';

describe('Slack permalinks', () => {
  let standin: SlackStandin;
  let client: webApi.WebClient;
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });

  beforeAll(async () => {
    standin = await startSlackStandin();
    client = new webApi.WebClient(standin.botToken, { slackApiUrl: standin.url, retryConfig: { retries: 0 } });
  });
  afterAll(async () => {
    await standin?.close();
  });

  it('are what chat.getPermalink answers, from one auth.test per team', async () => {
    const links = new SlackPermalinks(logger);
    const top = await links.of(client, SLACK_DEFAULTS.teamId, 'C0GENERAL', '1710000000.000100');
    const reply = await links.of(client, SLACK_DEFAULTS.teamId, 'C0GENERAL', '1710000000.000200', '1710000000.000100');
    const root = await links.of(client, SLACK_DEFAULTS.teamId, 'C0GENERAL', '1710000000.000100', '1710000000.000100');
    standin.seedMessage('C0GENERAL', { ts: '1710000000.000200', user: 'U0CAROL01', thread_ts: '1710000000.000100' });
    const asked = async (ts: string) =>
      (await client.chat.getPermalink({ channel: 'C0GENERAL', message_ts: ts })).permalink;
    expect(top).toBe(await asked('1710000000.000100'));
    expect(root).toBe(top);
    expect(reply).toBe(await asked('1710000000.000200'));
    expect(reply).toBe(
      `https://${SLACK_DEFAULTS.teamDomain}.slack.com/archives/C0GENERAL/p1710000000000200?thread_ts=1710000000.000100&cid=C0GENERAL`,
    );
    expect(standin.callsTo('auth.test')).toHaveLength(1);
  });

  it('fall back to chat.getPermalink while the team URL cannot be read, and log no token', async () => {
    const links = new SlackPermalinks(logger);
    const before = standin.callsTo('chat.getPermalink').length;
    standin.failNext('auth.test', { error: 'internal_error' });
    expect(await links.of(client, SLACK_DEFAULTS.teamId, 'C0GENERAL', '1710000000.000300')).toBe(
      `https://${SLACK_DEFAULTS.teamDomain}.slack.com/archives/C0GENERAL/p1710000000000300`,
    );
    expect(standin.callsTo('chat.getPermalink').length).toBe(before + 1);
    // Neither answers: no link, a warning, and the next message tries the team URL again.
    standin.failNext('auth.test', { error: 'internal_error' });
    standin.failNext('chat.getPermalink', { error: 'internal_error' });
    expect(await links.of(client, SLACK_DEFAULTS.teamId, 'C0GENERAL', '1710000000.000400')).toBeNull();
    expect(lines.some((l) => l.includes('could not get a Slack permalink'))).toBe(true);
    const authCalls = standin.callsTo('auth.test').length;
    expect(await links.of(client, SLACK_DEFAULTS.teamId, 'C0GENERAL', '1710000000.000500')).toContain(
      '/archives/C0GENERAL/p1710000000000500',
    );
    expect(standin.callsTo('auth.test').length).toBe(authCalls + 1);
    for (const l of lines) expect(l).not.toContain(standin.botToken);
  });
});
