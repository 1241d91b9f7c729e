// Edits and deletes made in Slack follow to what Switchboard stored, in any
// channel or DM (not only bridged ones): signed message_changed and
// message_deleted events through the real Slack mount, the Web API stand-in,
// and the agent's own reads (check_inbox, search_messages).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { dmChannelId, SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { eventCallback, messageIm, nextEventTs } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, mentionAndReceive, startHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';

/** Slack's message_changed: `message` as it is now, `previous_message` as it was (both carry the original ts). */
function changed(
  channel: string,
  channelType: string,
  was: { ts: string; text: string; thread_ts?: string },
  text: string,
) {
  const ts = nextEventTs();
  const thread = was.thread_ts ? { thread_ts: was.thread_ts } : {};
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel,
    channel_type: channelType,
    ts,
    event_ts: ts,
    message: { type: 'message', user: CAROL, text, ts: was.ts, ...thread, edited: { user: CAROL, ts } },
    previous_message: { type: 'message', user: CAROL, text: was.text, ts: was.ts, ...thread },
  };
}

/** Slack's message_deleted: `deleted_ts` names the message that went. */
function deleted(channel: string, channelType: string, was: { ts: string; text: string; thread_ts?: string }) {
  const ts = nextEventTs();
  return {
    type: 'message',
    subtype: 'message_deleted',
    hidden: true,
    channel,
    channel_type: channelType,
    deleted_ts: was.ts,
    ts,
    event_ts: ts,
    previous_message: {
      type: 'message',
      user: CAROL,
      text: was.text,
      ts: was.ts,
      ...(was.thread_ts ? { thread_ts: was.thread_ts } : {}),
    },
  };
}

describe('edits and deletes made in Slack', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  const stored = (id: string) => h.server.app.store.messages.get(h.workspace.id, id);
  const search = (text: string) => h.server.app.messaging.search(h.reviewer, h.workspace, { text, limit: 10 });

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen' });
    h = await startHarness({ database: db, standin, seed: true });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('a mention edited in a channel reads and searches as edited, and once deleted the agent finds it no more', async () => {
    const { item, mention } = await mentionAndReceive(h, 'my password is hunter2', CAROL);
    const id = item.message.id;
    expect((await search('hunter2')).map((hit) => hit.message.id)).toContain(id);

    const redacted = item.message.body.replace('hunter2', '[redacted]');
    expect((await h.post(eventCallback(changed('C0GENERAL', 'channel', mention, `${BOT} ${redacted}`)))).status).toBe(
      200,
    );
    await vi.waitFor(async () => expect((await stored(id))?.body).toBe(redacted), { timeout: 20_000, interval: 50 });
    expect((await stored(id))?.editedAt).not.toBeNull();
    // The thread's title quoted the message's start; it quotes the new one (the word is gone there too).
    const title = async () =>
      (await h.server.app.store.messages.getConversation(h.workspace.id, item.conversation.id))?.title;
    expect(item.conversation.title).toContain('hunter2');
    expect(await title()).toBe(item.conversation.title.replace('hunter2', '[redacted]'));
    expect(await search('hunter2')).toEqual([]);
    expect((await search('redacted')).map((hit) => hit.message.id)).toContain(id);

    expect(
      (await h.post(eventCallback(deleted('C0GENERAL', 'channel', { ts: mention.ts, text: `${BOT} ${redacted}` }))))
        .status,
    ).toBe(200);
    await vi.waitFor(async () => expect(await stored(id)).toBeNull(), { timeout: 20_000, interval: 50 });
    expect(await search('redacted')).toEqual([]);
    expect(await title()).toMatch(/: \(deleted message\)$/);
  });

  it('an unread DM edited in Slack reaches the agent with the new text; a thread root deleted as a tombstone goes', async () => {
    const { app } = h.server;
    await app.store.defaultAgents.set(
      { surface: 'slack', tenantId: SLACK_DEFAULTS.teamId, scope: 'user', scopeId: CAROL },
      h.reviewer.id,
      CAROL,
    );
    const dm = { ...messageIm({ user: CAROL, text: 'the staging key is sk-123' }), text: 'the staging key is sk-123' };
    expect((await h.post(eventCallback(dm))).status).toBe(200);
    const original = await vi.waitFor(
      async () => {
        const found = (await search('staging')).find((hit) => hit.message.body === 'the staging key is sk-123');
        if (!found) throw new Error('the DM is not stored yet');
        return found.message;
      },
      { timeout: 20_000, interval: 50 },
    );

    // Stored under the whole DM (no thread); Slack's change says nothing of that.
    expect(
      (await h.post(eventCallback(changed(dmChannelId(CAROL), 'im', dm, 'the staging key is in the vault')))).status,
    ).toBe(200);
    await vi.waitFor(async () => expect((await stored(original.id))?.body).toBe('the staging key is in the vault'), {
      timeout: 20_000,
      interval: 50,
    });
    const [got] = (await inbox(h)).filter((i) => i.message.id === original.id);
    expect(got.message.body).toBe('the staging key is in the vault');

    // A DM message with replies, deleted: Slack keeps a tombstone in its place and sends it as a change.
    const tombstone = {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: dmChannelId(CAROL),
      channel_type: 'im',
      ts: nextEventTs(),
      message: {
        type: 'message',
        subtype: 'tombstone',
        text: 'This message was deleted.',
        user: 'USLACKBOT',
        hidden: true,
        ts: dm.ts,
        thread_ts: dm.ts,
        reply_count: 1,
      },
      previous_message: {
        type: 'message',
        user: CAROL,
        text: 'the staging key is in the vault',
        ts: dm.ts,
        thread_ts: dm.ts,
        reply_count: 1,
      },
    };
    expect((await h.post(eventCallback(tombstone))).status).toBe(200);
    await vi.waitFor(async () => expect(await stored(original.id)).toBeNull(), { timeout: 20_000, interval: 50 });
  });

  it("leaves an agent's own post alone when Slack reports it deleted", async () => {
    const { item } = await mentionAndReceive(h, 'please look', CAROL);
    const sent = await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'looking now',
    });
    const posted = await vi.waitFor(
      async () => {
        const m = await stored(sent.message!.id);
        if (!m?.externalId) throw new Error('not posted to Slack yet');
        return m;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(
      (await h.post(eventCallback(deleted('C0GENERAL', 'channel', { ts: posted.externalId!, text: 'looking now' }))))
        .status,
    ).toBe(200);
    // Events of one channel are handled in order: once a later edit in the channel took effect, the delete was handled.
    const { item: later, mention } = await mentionAndReceive(h, 'typo hre', CAROL);
    await h.post(
      eventCallback(changed('C0GENERAL', 'channel', mention, `${BOT} ${later.message.body.replace('hre', 'here')}`)),
    );
    await vi.waitFor(async () => expect((await stored(later.message.id))?.body).toContain('typo here'), {
      timeout: 20_000,
      interval: 50,
    });
    expect((await stored(posted.id))?.body).toBe('looking now');
  });

  it('reads nothing from Slack for a change of a message it never stored (Slack sends one for every link it unfurls)', async () => {
    const NOBODY = 'U0NOBODY1';
    const unstored = { ts: nextEventTs(), text: `see <@${NOBODY}>'s link` };
    const users = () => standin.callsTo('users.info').filter((c) => c.args.user === NOBODY);
    expect(
      (
        await h.post(
          eventCallback(changed('C0GENERAL', 'channel', unstored, `see <@${NOBODY}>'s link https://example.com`)),
        )
      ).status,
    ).toBe(200);
    // Events of one channel are handled in order: once a later edit in the channel took effect, the one before was handled.
    const { item: later, mention } = await mentionAndReceive(h, 'one mor thing', CAROL);
    await h.post(
      eventCallback(changed('C0GENERAL', 'channel', mention, `${BOT} ${later.message.body.replace('mor', 'more')}`)),
    );
    await vi.waitFor(async () => expect((await stored(later.message.id))?.body).toContain('one more thing'), {
      timeout: 20_000,
      interval: 50,
    });
    expect(users()).toEqual([]);
  });
});
