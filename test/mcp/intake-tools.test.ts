// The intake tools over MCP, on PGlite and real PostgreSQL: filing from
// overheard web channel messages with links back, filters and counts per
// source, refusals that say what to do, the done notice told once per person
// who asked (never to someone who opted out), and items shown only to agents
// that saw every message they came from (or monitor the workspace).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLink } from '../../src/core/previews/links.ts';
import type { Database } from '../../src/infra/db/client.ts';
import type { App } from '../../src/app.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import type { ChatService } from '../../src/surfaces/web/pages/chat-service.ts';
import type { InboundMessage, SurfacePort } from '../../src/core/surfaces/inbound.ts';
import type { Workspace } from '../../src/core/entities.ts';
import { databases } from '../support/db.ts';
import { connectInProcess, makeWorld, testApp, textOf, type World } from '../support/world.ts';
import { chatOf } from '../../src/surfaces/web/index.ts';

/** A chat app connected to one workspace, as its adapter would present it (as in test/core/surfaces/inbound-service.test.ts). */
function chatApp(tenantId: string, ws: Workspace): SurfacePort {
  return {
    surface: 'slack',
    label: 'Chatland',
    profileTtlMs: 60_000,
    workspaceOf: async (t) => (t === tenantId ? ws : null),
    profile: async (authorId) => ({
      displayName: `Person ${authorId}`,
      email: `${authorId.toLowerCase()}@example.test`,
      fetchedAt: new Date(),
    }),
    sendLinkPrompt: async () => true,
    permalink: async (messageId) => `https://chat.example.test/m/${messageId}`,
    showName: (name) => `«${name}»`,
    linkHowTo: (justSent) => (justSent ? 'I sent you a link' : 'ask me for a link'),
  };
}

/** An unlinked person's DM to the agent it names. */
const guestDm = (tenantId: string, authorId: string, text: string): InboundMessage => ({
  surface: 'slack',
  tenantId,
  channelId: `D${authorId}`,
  place: 'dm',
  conversationKey: `fake:D${authorId}:dm`,
  externalRef: { channel: `D${authorId}` },
  messageId: `${authorId}-${text.length}`,
  threadRootId: null,
  authorId,
  text,
  names: [...text.matchAll(/@([a-z]+)/g)].map((m) => m[1]),
  addressed: true,
});

/** A refusal with the item id it names taken out, to compare refusals about different ids. */
const refusalOf = (r: CallToolResult, id: string) => ({
  isError: r.isError,
  text: textOf(r).replaceAll(id, '<id>'),
  structured: JSON.stringify(r.structuredContent ?? null).replaceAll(id, '<id>'),
});

// On both: the embedded database runs one transaction at a time, and a read made outside an open one waits for it.
describe.each(databases())('intake tools on $kind', (database) => {
  let db: Database;
  let app: App;
  let w: World;
  let chat: ChatService;
  let mcp: Awaited<ReturnType<typeof connectInProcess>>;
  let asked: { alice: string; bob: string };
  let itemId: string;

  beforeAll(async () => {
    db = await database.open();
    app = await testApp(db);
    w = await makeWorld(app);
    chat = chatOf(app).chat;
    const alice = await chat.viewer((await app.store.people.get(w.alice))!.id, w.ws.slug);
    const bob = await chat.viewer((await app.store.people.get(w.bob))!.id, w.ws.slug);
    const ch = await chat.createChannel(alice, { name: 'feedback' });
    await chat.join(bob, ch.conversationId);
    await app.listening.listen(SYSTEM, w.ws.slug, 'feedback', w.reviewer.name);
    const a = await chat.post(alice, ch.conversationId, 'Please let us export the report as CSV');
    const b = await chat.post(bob, ch.conversationId, 'Same here: CSV export would save me an hour a week');
    asked = { alice: a.message!.id, bob: b.message!.id };
    mcp = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
  });
  afterAll(async () => {
    await mcp?.close();
    await app?.close();
    await db?.close();
  });

  it('files an item from overheard messages, each source with a link back to where it was said', async () => {
    const r = await mcp.call('file_intake', {
      title: 'CSV export of reports',
      kind: 'feature request',
      summary: 'Two people want the report as CSV.',
      source_message_ids: [asked.alice],
    });
    expect(r.isError).toBeFalsy();
    const item = (
      r.structuredContent as {
        item: {
          id: string;
          status: string;
          url: string;
          sources: Array<{ permalink: string; surface: string; excerpt: string }>;
        };
      }
    ).item;
    itemId = item.id;
    expect(item.status).toBe('new');
    expect(parseLink(item.url, app.config.publicUrl)).toMatchObject({ kind: 'intake', id: item.id });
    expect(item.sources).toEqual([
      expect.objectContaining({ surface: 'web', excerpt: 'Please let us export the report as CSV' }),
    ]);
    expect(item.sources[0].permalink).toMatch(new RegExp(`/#/w/${w.ws.slug}/c/[0-9a-f-]{36}$`));
  });

  it('refuses what it cannot do with what to do instead', async () => {
    const unknown = await mcp.call('file_intake', {
      title: 'x',
      kind: 'bug',
      source_message_ids: ['00000000-0000-4000-8000-000000000000'],
    });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/Use message ids from check_inbox, subscribe or search_messages/);
    const badKind = await mcp.call('file_intake', { title: 'x', kind: 'wish', source_message_ids: [asked.alice] });
    expect(badKind.isError).toBe(true);
    expect(textOf(badKind)).toMatch(/kind must be one of: complaint, bug, feature request, question/);
    const nothing = await mcp.call('update_intake', { id: itemId });
    expect(textOf(nothing)).toMatch(/Nothing to change: give `status`, `note` or `add_source_message_ids`/);
    const missing = await mcp.call('get_intake', { id: '00000000-0000-4000-8000-000000000000' });
    expect(textOf(missing)).toMatch(/Call list_intake for the ids/);
  });

  it('adds sources and notes, lists with filters and counts per source', async () => {
    const r = await mcp.call('update_intake', {
      id: itemId,
      status: 'in progress',
      note: 'Picked up in sprint 12',
      add_source_message_ids: [asked.bob],
    });
    expect(r.isError).toBeFalsy();
    const got = await mcp.call('get_intake', { id: itemId });
    const item = (
      got.structuredContent as { item: { status: string; sources: unknown[]; notes: Array<{ body: string }> } }
    ).item;
    expect(item).toMatchObject({ status: 'in progress', notes: [{ body: 'Picked up in sprint 12' }] });
    expect(item.sources).toHaveLength(2);
    const list = (await mcp.call('list_intake', { kind: 'feature request', surface: 'web' })).structuredContent as {
      items: Array<{ id: string }>;
      counts: { total: number; by_source: Record<string, number> };
    };
    expect(list.items.map((i) => i.id)).toEqual([itemId]);
    expect(list.counts).toMatchObject({ total: 1, by_source: { web: 1 } });
    expect(
      ((await mcp.call('list_intake', { status: 'done' })).structuredContent as { items: unknown[] }).items,
    ).toEqual([]);
  });

  it('tells each person who asked once when it is done, where they asked, unless they opted out', async () => {
    const bobPerson = (await app.store.people.get(w.bob))!;
    await app.intake.setNotices({ personId: bobPerson.id }, false);
    expect(await app.intake.noticesOn({ personId: bobPerson.id })).toBe(false);
    const done = await mcp.call('update_intake', { id: itemId, status: 'done' });
    expect((done.structuredContent as { told: number }).told).toBe(1);
    expect(textOf(done)).toContain('1 person was told it is done');
    const alicePerson = await app.store.agents.personAgent((await app.store.people.get(w.alice))!.id);
    const aliceInbox = (await app.messaging.checkInbox(alicePerson!, w.ws, 50)).items;
    const notice = aliceInbox.filter((i) => i.message.body.includes('change you asked for is now live'));
    expect(notice).toHaveLength(1);
    expect(notice[0].message.body).toContain('CSV export of reports');
    expect(notice[0].sender.name).toBe('switchboard');
    const bobAgent = await app.store.agents.personAgent(bobPerson.id);
    expect(
      (await app.messaging.checkInbox(bobAgent!, w.ws, 50)).items.filter((i) => i.message.body.includes('now live')),
    ).toEqual([]);

    // Reopened and done again: nobody is told twice.
    await mcp.call('update_intake', { id: itemId, status: 'triaged' });
    const again = await mcp.call('update_intake', { id: itemId, status: 'done' });
    expect((again.structuredContent as { told: number }).told).toBe(0);
    const got = (await mcp.call('get_intake', { id: itemId })).structuredContent as {
      item: { sources: Array<{ notified: boolean }> };
    };
    expect(got.item.sources.map((s) => s.notified)).toEqual([true, true]);
  });

  it('pages through a long list with offset and next_offset, for a monitor and for an agent that overheard the items', async () => {
    // 106 more items, older than the one filed above, each a second apart and citing what reviewer overheard.
    const [source] = await app.store.intake.sources([itemId]);
    const { notifiedAt: _n, addedAt: _a, ...cited } = source;
    const base = Date.now() - 86_400_000;
    const older: string[] = [];
    for (let k = 0; k < 106; k++) {
      const item = await app.store.intake.create(
        {
          workspaceId: w.ws.id,
          title: `Old request ${k}`,
          kind: 'question',
          summary: '',
          filedBy: w.reviewer.agent.id,
        },
        new Date(base + k * 1000),
      );
      await app.store.intake.addSources([{ ...cited, itemId: item.id }]);
      older.unshift(item.id);
    }
    await app.agents.join(SYSTEM, { agent: w.builder.name, workspace: w.ws.slug, monitor: true });
    const monitor = await connectInProcess(app, w.builder.agent, w.ws.slug);
    type Page = {
      items: Array<{ id: string }>;
      counts: { total: number };
      truncated: boolean;
      next_offset: number | null;
      older_not_searched: boolean;
    };
    for (const agent of [mcp, monitor]) {
      const first = await agent.call('list_intake', { limit: 100 });
      const page = first.structuredContent as Page;
      expect(page).toMatchObject({
        counts: { total: 107 },
        truncated: true,
        next_offset: 100,
        older_not_searched: false,
      });
      expect(textOf(first)).toContain('(107 in all. Showing 100 from 0. The list was cut: call again with offset 100');
      const rest = (await agent.call('list_intake', { limit: 100, offset: page.next_offset }))
        .structuredContent as Page;
      expect(rest).toMatchObject({ truncated: false, next_offset: null });
      expect([...page.items, ...rest.items].map((i) => i.id)).toEqual([itemId, ...older]);
      const questions = (await agent.call('list_intake', { kind: 'question', limit: 5, offset: 100 }))
        .structuredContent as Page;
      expect(questions).toMatchObject({ truncated: true, next_offset: 105 });
      expect(questions.items.map((i) => i.id)).toEqual(older.slice(100, 105));
    }
    await monitor.close();
  });

  describe('for agents that did not see every source', () => {
    // A guest DMs reviewer (item A) and, apart, builder (item B); watcher, a monitor, files C from both
    // messages; builder files D from the message it received.
    let g: World;
    let as: Record<'builder' | 'reviewer' | 'watcher', Awaited<ReturnType<typeof connectInProcess>>>;
    let ids: { a: string; b: string; c: string; d: string };
    type Listed = {
      items: Array<{ id: string; title: string; summary: string; sources: Array<{ excerpt: string | null }> }>;
      counts: { total: number; by_status: Record<string, number>; by_source: Record<string, number> };
    };
    const list = async (who: keyof typeof as, args: Record<string, unknown> = {}) =>
      (await as[who].call('list_intake', args)).structuredContent as Listed;
    const unknownId = '00000000-0000-4000-8000-000000000000';

    beforeAll(async () => {
      g = await makeWorld(app);
      const watcher = await app.agents.add(SYSTEM, {
        name: 'watcher',
        owner: g.alice,
        displayName: 'Watcher',
        roleLine: 'Watches everything',
      });
      await app.agents.join(SYSTEM, { agent: `${g.alice}/watcher`, workspace: g.ws.slug, monitor: true });
      const tenant = `T${g.suffix}`;
      const port = chatApp(tenant, g.ws);
      await app.inbound.receive(
        port,
        guestDm(tenant, 'U0GUEST1', "@reviewer please fix the salary export, it shows everyone's pay"),
      );
      await app.inbound.receive(port, guestDm(tenant, 'U0GUEST2', '@builder can you add a dark mode?'));
      const auto = await app.intake.list(g.ws, { limit: 10 });
      const a = auto.find((i) => i.title.includes('salary'))!;
      const b = auto.find((i) => i.title.includes('dark mode'))!;
      as = {
        builder: await connectInProcess(app, g.builder.agent, g.ws.slug),
        reviewer: await connectInProcess(app, g.reviewer.agent, g.ws.slug),
        watcher: await connectInProcess(app, watcher.agent, g.ws.slug),
      };
      const filed = async (who: keyof typeof as, args: Record<string, unknown>) =>
        ((await as[who].call('file_intake', args)).structuredContent as { item: { id: string } }).item.id;
      const c = await filed('watcher', {
        title: 'Guests want changes',
        kind: 'feature request',
        source_message_ids: [a.sources[0].messageId, b.sources[0].messageId],
      });
      const d = await filed('builder', {
        title: 'Dark mode',
        kind: 'feature request',
        summary: 'A guest wants a dark theme.',
        source_message_ids: [b.sources[0].messageId],
      });
      ids = { a: a.id, b: b.id, c, d };
    });
    afterAll(async () => {
      await Promise.all(Object.values(as ?? {}).map((c) => c.close()));
    });

    it('leaves out of list_intake, and out of its counts, an item from a message the agent did not see', async () => {
      const r = await list('builder');
      expect(r.items.map((i) => i.id).sort()).toEqual([ids.b, ids.d].sort());
      expect(JSON.stringify(r)).not.toContain('salary');
      expect(r.counts).toEqual({ total: 2, by_status: { new: 2 }, by_source: { slack: 2 } });
      expect((await list('builder', { kind: 'bug' })).counts.total).toBe(2);
      const text = textOf(await as.builder.call('list_intake', {}));
      expect(text).not.toContain('salary');
      expect(text).toContain('(2 in all.)');
    });

    it('hides an item when the agent saw only some of its sources', async () => {
      expect((await list('reviewer')).items.map((i) => i.id)).not.toContain(ids.c);
      const got = await as.reviewer.call('get_intake', { id: ids.c });
      expect(refusalOf(got, ids.c)).toEqual(
        refusalOf(await as.reviewer.call('get_intake', { id: unknownId }), unknownId),
      );
    });

    it('answers get_intake and update_intake for an item the agent did not see exactly as for an unknown id', async () => {
      const hidden = await as.builder.call('get_intake', { id: ids.a });
      expect(hidden.isError).toBe(true);
      expect(textOf(hidden)).not.toContain('salary');
      expect(refusalOf(hidden, ids.a)).toEqual(
        refusalOf(await as.builder.call('get_intake', { id: unknownId }), unknownId),
      );
      const update = await as.builder.call('update_intake', { id: ids.a, status: 'done' });
      expect(refusalOf(update, ids.a)).toEqual(
        refusalOf(await as.builder.call('update_intake', { id: unknownId, status: 'done' }), unknownId),
      );
      expect((await app.intake.detail(g.ws, ids.a)).status).toBe('new');
    });

    it('shows the agent that received the message its item, with its excerpt, and nothing else', async () => {
      const listed = await list('reviewer');
      expect(listed.items.map((i) => i.id)).toEqual([ids.a]);
      expect(listed.counts).toEqual({ total: 1, by_status: { new: 1 }, by_source: { slack: 1 } });
      const got = await as.reviewer.call('get_intake', { id: ids.a });
      expect(got.isError).toBeFalsy();
      const item = (got.structuredContent as { item: Listed['items'][number] }).item;
      expect(item.summary).toContain('please fix the salary export');
      expect(item.sources.map((s) => s.excerpt)).toEqual([expect.stringContaining('salary export')]);
      expect((await as.builder.call('get_intake', { id: ids.d })).isError).toBeFalsy();
    });

    it("shows a monitor every item, with counts of the whole workspace that other agents' counts leave out", async () => {
      const r = await list('watcher');
      expect(r.items.map((i) => i.id).sort()).toEqual(Object.values(ids).sort());
      expect(r.counts).toEqual({ total: 4, by_status: { new: 4 }, by_source: { slack: 4 } });
      expect((await list('builder')).counts.total).toBe(2);
      expect((await as.watcher.call('get_intake', { id: ids.a })).isError).toBeFalsy();
    });

    it('keeps an item visible to the agent that filed it once its messages are purged', async () => {
      await app.store.messages.purgeOlderThan(g.ws.orgId, new Date(Date.now() + 60_000));
      expect((await list('builder')).items.map((i) => i.id)).toEqual([ids.d]);
      const got = await as.builder.call('get_intake', { id: ids.d });
      expect(got.isError).toBeFalsy();
      expect((got.structuredContent as { item: Listed['items'][number] }).item.sources.map((s) => s.excerpt)).toEqual([
        null,
      ]);
    });
  });
});
