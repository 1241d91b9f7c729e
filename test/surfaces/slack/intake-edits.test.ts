// Intake follows what a guest edits or deletes in Slack: a request filed
// automatically from their message, then changed through signed
// message_changed / message_deleted events on the real Slack mount, reads
// through the agents' own MCP intake tools with the new words (or as deleted)
// in its title, summary and source excerpts; the old words are nowhere.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, nextEventTs } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { connectInProcess } from '../../support/world.ts';
import { inbox, startHarness, type Harness } from '../../support/slack/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';
const database = postgresDb() ?? pgliteDb;

/** Slack's message_changed: `message` as it is now, `previous_message` as it was (both carry the original ts). */
function changed(was: { ts: string; text: string; thread_ts?: string }, text: string) {
  const ts = nextEventTs();
  const thread = was.thread_ts ? { thread_ts: was.thread_ts } : {};
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: 'C0GENERAL',
    channel_type: 'channel',
    ts,
    event_ts: ts,
    message: { type: 'message', user: CAROL, text, ts: was.ts, ...thread, edited: { user: CAROL, ts } },
    previous_message: { type: 'message', user: CAROL, text: was.text, ts: was.ts, ...thread },
  };
}

/** Slack's message_deleted: `deleted_ts` names the message that went. */
function deleted(was: { ts: string; text: string; thread_ts?: string }) {
  const ts = nextEventTs();
  return {
    type: 'message',
    subtype: 'message_deleted',
    hidden: true,
    channel: 'C0GENERAL',
    channel_type: 'channel',
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

interface ItemOut {
  id: string;
  title: string;
  summary: string;
  filed_automatically: boolean;
  sources: Array<{ message_id: string; excerpt: string | null }>;
}

describe(`intake follows edits and deletes made in Slack (${database.kind})`, () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let reviewer: Awaited<ReturnType<typeof connectInProcess>>;
  /** alice/auditor monitors the workspace: it reads every item, also once a source message is gone. */
  let auditor: Awaited<ReturnType<typeof connectInProcess>>;
  const stored = (id: string) => h.server.app.store.messages.get(h.workspace.id, id);

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen', display_name: 'carol' });
    h = await startHarness({ database: db, standin, seed: true });
    const { app } = h.server;
    const { agent } = await app.agents.add(SYSTEM, { name: 'auditor', owner: 'alice' });
    await app.agents.join(SYSTEM, { agent: 'alice/auditor', workspace: 'eng', monitor: true });
    [reviewer, auditor] = await Promise.all([
      connectInProcess(app, h.reviewer, 'eng'),
      connectInProcess(app, agent, 'eng'),
    ]);
  });
  afterAll(async () => {
    await reviewer?.close();
    await auditor?.close();
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  /** Carol asks @reviewer in #C0GENERAL (or in a thread there); resolves once the agent got it, with its stored id. */
  async function ask(text: string, threadTs?: string) {
    const mention = appMention({
      user: CAROL,
      channel: 'C0GENERAL',
      text: `${BOT} @reviewer ${text}`,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    expect((await h.post(eventCallback(mention))).status).toBe(200);
    const got = await vi.waitFor(
      async () => {
        const found = (await inbox(h)).find((i) => i.message.body === `@reviewer ${text}`);
        if (!found) throw new Error('not delivered yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    return { id: got.message.id, mention };
  }

  /** The automatic item citing the message, read with list_intake and get_intake as the agent reads it. */
  async function itemOf(mcp: typeof reviewer, messageId: string): Promise<ItemOut> {
    const id = await vi.waitFor(
      async () => {
        const list = await mcp.call('list_intake', { limit: 100 });
        const found = (list.structuredContent as { items: ItemOut[] }).items.find(
          (i) => i.filed_automatically && i.sources.some((s) => s.message_id === messageId),
        );
        if (!found) throw new Error('no intake item yet');
        return found.id;
      },
      { timeout: 20_000, interval: 50 },
    );
    return get(mcp, id);
  }

  async function get(mcp: typeof reviewer, id: string): Promise<ItemOut> {
    const r = await mcp.call('get_intake', { id });
    expect(r.isError).toBeFalsy();
    return (r.structuredContent as { item: ItemOut }).item;
  }

  it("an edited request reads with its new words in the automatic item and in every source; an agent's own item keeps its words", async () => {
    const { id, mention } = await ask('please remove the password hint, mine is hunter2');
    const before = await itemOf(reviewer, id);
    expect(before).toMatchObject({
      title: '@reviewer please remove the password hint, mine is hunter2',
      summary: '@reviewer please remove the password hint, mine is hunter2',
    });
    // The agent files its own item from the same message: its words are its own, the source quotes Carol.
    const filed = await reviewer.call('file_intake', {
      title: 'Password hint',
      kind: 'feature request',
      summary: 'Carol wants the password hint gone.',
      source_message_ids: [id],
    });
    expect(filed.isError).toBeFalsy();
    const own = (filed.structuredContent as { item: ItemOut }).item;
    expect(own.sources[0].excerpt).toContain('hunter2');

    const redacted = '@reviewer please remove the password hint, mine is [redacted]';
    expect((await h.post(eventCallback(changed(mention, `${BOT} ${redacted}`)))).status).toBe(200);
    await vi.waitFor(async () => expect((await stored(id))?.body).toBe(redacted), { timeout: 20_000, interval: 50 });

    const after = await get(reviewer, before.id);
    expect(after).toMatchObject({
      title: redacted,
      summary: redacted,
      sources: [expect.objectContaining({ message_id: id, excerpt: redacted })],
    });
    const ownAfter = await get(reviewer, own.id);
    expect(ownAfter).toMatchObject({
      title: 'Password hint',
      summary: 'Carol wants the password hint gone.',
      sources: [expect.objectContaining({ excerpt: redacted })],
    });
    const everything = JSON.stringify((await reviewer.call('list_intake', { limit: 100 })).structuredContent);
    expect(everything).not.toContain('hunter2');
  });

  it('a deleted request keeps its item, which says the message was deleted; a later request in its thread stays as it was', async () => {
    const first = await ask('please show my card number 4111 1111 on the invoice');
    const item = await itemOf(reviewer, first.id);
    const second = await ask('can you also fix the invoice date', first.mention.ts);
    await vi.waitFor(async () => expect((await get(reviewer, item.id)).sources).toHaveLength(2), {
      timeout: 20_000,
      interval: 50,
    });

    expect(
      (
        await h.post(
          eventCallback(
            deleted({
              ts: first.mention.ts,
              text: `${BOT} @reviewer please show my card number 4111 1111 on the invoice`,
            }),
          ),
        )
      ).status,
    ).toBe(200);
    await vi.waitFor(async () => expect(await stored(first.id)).toBeNull(), { timeout: 20_000, interval: 50 });

    // The deleted message no longer counts as seen by the agent it reached; the monitor reads the item.
    const after = await get(auditor, item.id);
    expect(after.title).toBe('(deleted message)');
    expect(after.summary).toMatch(/deleted/);
    expect(after.sources).toEqual([
      expect.objectContaining({ message_id: first.id, excerpt: '(deleted message)' }),
      expect.objectContaining({ message_id: second.id, excerpt: '@reviewer can you also fix the invoice date' }),
    ]);
    expect(JSON.stringify((await auditor.call('list_intake', { limit: 100 })).structuredContent)).not.toContain(
      '4111 1111',
    );
  });

  it("a web chat message an agent filed from follows its author's edit and delete in the web chat too", async () => {
    const { app } = h.server;
    const alice = await chatOf(app).chat.viewer((await app.store.people.get('alice'))!.id, 'eng');
    const general = (await chatOf(app).chat.sidebar(alice)).channels.find((c) => c.name === 'general')!;
    const sent = (
      await chatOf(app).chat.post(alice, general.id, '@reviewer the staging password is swordfish, please rotate it')
    ).message!;
    const filed = await auditor.call('file_intake', {
      title: 'Rotate staging password',
      kind: 'bug',
      summary: 'Rotate it.',
      source_message_ids: [sent.id],
    });
    expect(filed.isError).toBeFalsy();
    const item = (filed.structuredContent as { item: ItemOut }).item;
    expect(item.sources[0].excerpt).toContain('swordfish');

    await chatOf(app).chat.edit(alice, sent.id, '@reviewer the staging password needs rotating');
    expect((await get(auditor, item.id)).sources).toEqual([
      expect.objectContaining({ message_id: sent.id, excerpt: '@reviewer the staging password needs rotating' }),
    ]);
    await chatOf(app).chat.remove(alice, sent.id);
    const after = await get(auditor, item.id);
    expect(after).toMatchObject({
      title: 'Rotate staging password',
      sources: [expect.objectContaining({ message_id: sent.id, excerpt: '(deleted message)' })],
    });
    expect(JSON.stringify((await auditor.call('list_intake', { limit: 100 })).structuredContent)).not.toContain(
      'swordfish',
    );
  });
});
