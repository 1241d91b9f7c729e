import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/adapters/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, startHarness, type Harness } from './harness.ts';

describe('a mention in a Slack channel', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser('U0CAROL01', { real_name: 'Carol Chen', display_name: 'carol', email: 'carol@example.test' });
    h = await startHarness({ database: db, standin, seed: true });
  });
  afterAll(async () => { await h?.stop(); await standin?.close(); await db?.close(); });

  it('reaches the named agent, and its reply lands in the same thread under its name and avatar', async () => {
    const mention = appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text: `<@${SLACK_DEFAULTS.botUserId}> ask @reviewer to look at #418` });
    const res = await h.post(eventCallback(mention));
    expect(res.status).toBe(200);

    const items = await vi.waitFor(async () => {
      const got = await inbox(h);
      expect(got).toHaveLength(1);
      return got;
    });
    expect(items[0].message.body).toBe('ask @reviewer to look at #418');
    expect(items[0].conversation.surface).toBe('slack');
    expect(items[0].message.permalink).toContain('/archives/C0GENERAL/p');
    expect(items[0].asker.identityId).not.toBeNull();

    const { app } = h.server;
    await app.messaging.send({ workspace: h.workspace, sender: h.reviewer, conversationId: items[0].conversation.id, body: 'Looking at #418 now.' });
    const post = await vi.waitFor(() => {
      const calls = standin.callsTo('chat.postMessage').filter((c) => c.args.text === 'Looking at #418 now.');
      expect(calls).toHaveLength(1);
      return calls[0];
    });
    expect(post.args).toMatchObject({
      channel: 'C0GENERAL', thread_ts: mention.ts, username: 'Reviewer', icon_url: 'https://example.test/reviewer.png',
      metadata: { event_type: 'switchboard_message', event_payload: { agent: 'alice/reviewer' } },
    });
  });
});
