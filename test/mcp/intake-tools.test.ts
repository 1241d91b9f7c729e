// The intake tools over MCP on real PostgreSQL: filing from overheard web
// channel messages with links back, filters and counts per source, refusals
// that say what to do, and the done notice told once per person who asked
// (never to someone who opted out).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/adapters/db/client.ts';
import type { App } from '../../src/app.ts';
import { SYSTEM } from '../../src/domain/actor.ts';
import type { ChatService } from '../../src/domain/chat/chat-service.ts';
import { pgliteDb, postgresDb } from '../support/db.ts';
import { connectInProcess, makeWorld, testApp, textOf, type World } from './support/world.ts';

const database = postgresDb() ?? pgliteDb;

describe(`intake tools (${database.kind})`, () => {
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
    chat = app.chat;
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
  afterAll(async () => { await mcp?.close(); await app?.close(); await db?.close(); });

  it('files an item from overheard messages, each source with a link back to where it was said', async () => {
    const r = await mcp.call('file_intake', { title: 'CSV export of reports', kind: 'feature request', summary: 'Two people want the report as CSV.', source_message_ids: [asked.alice] });
    expect(r.isError).toBeFalsy();
    const item = (r.structuredContent as { item: { id: string; status: string; sources: Array<{ permalink: string; surface: string; excerpt: string }> } }).item;
    itemId = item.id;
    expect(item.status).toBe('new');
    expect(item.sources).toEqual([expect.objectContaining({ surface: 'web', excerpt: 'Please let us export the report as CSV' })]);
    expect(item.sources[0].permalink).toMatch(new RegExp(`/#/w/${w.ws.slug}/c/[0-9a-f-]{36}$`));
  });

  it('refuses what it cannot do with what to do instead', async () => {
    const unknown = await mcp.call('file_intake', { title: 'x', kind: 'bug', source_message_ids: ['00000000-0000-4000-8000-000000000000'] });
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
    const r = await mcp.call('update_intake', { id: itemId, status: 'in progress', note: 'Picked up in sprint 12', add_source_message_ids: [asked.bob] });
    expect(r.isError).toBeFalsy();
    const got = await mcp.call('get_intake', { id: itemId });
    const item = (got.structuredContent as { item: { status: string; sources: unknown[]; notes: Array<{ body: string }> } }).item;
    expect(item).toMatchObject({ status: 'in progress', notes: [{ body: 'Picked up in sprint 12' }] });
    expect(item.sources).toHaveLength(2);
    const list = (await mcp.call('list_intake', { kind: 'feature request', surface: 'web' })).structuredContent as { items: Array<{ id: string }>; counts: { total: number; by_source: Record<string, number> } };
    expect(list.items.map((i) => i.id)).toEqual([itemId]);
    expect(list.counts).toMatchObject({ total: 1, by_source: { web: 1 } });
    expect(((await mcp.call('list_intake', { status: 'done' })).structuredContent as { items: unknown[] }).items).toEqual([]);
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
    expect((await app.messaging.checkInbox(bobAgent!, w.ws, 50)).items.filter((i) => i.message.body.includes('now live'))).toEqual([]);

    // Reopened and done again: nobody is told twice.
    await mcp.call('update_intake', { id: itemId, status: 'triaged' });
    const again = await mcp.call('update_intake', { id: itemId, status: 'done' });
    expect((again.structuredContent as { told: number }).told).toBe(0);
    const got = (await mcp.call('get_intake', { id: itemId })).structuredContent as { item: { sources: Array<{ notified: boolean }> } };
    expect(got.item.sources.map((s) => s.notified)).toEqual([true, true]);
  });
});
