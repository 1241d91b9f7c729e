// The lookups made on every message, connection or page read a few rows, however big their tables grow: each is run
// through the store against tables of thousands of rows (seeded by SQL in one go) and explained as it runs, and must
// find the right rows while reading a few hundred at most. A scan of the table under test would read them all.
// On PostgreSQL only: the plans are PostgreSQL's, and seeding PGlite this much would be slow.
import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { systemClock, type Store } from '../../../src/core/ports.ts';
import type { Workspace } from '../../../src/core/entities.ts';
import { postgresDb } from '../../support/db.ts';
import { rowsReadBy } from '../../support/explain.ts';

/** The uuid `md5(text)::uuid` makes in SQL: the seeded rows' ids. */
const uid = (s: string) =>
  createHash('md5')
    .update(s)
    .digest('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/** Rows in each table under test (a scan reads them all), and what a lookup may read. */
const N = 10_000;
const FEW = 200;

const pg = postgresDb();

describe.runIf(pg)('lookups at scale, on PostgreSQL', () => {
  let database: Database;
  let store: Store;
  let eng: Workspace;
  let ops: Workspace;
  let alice: string; // person agents
  let bob: string;
  let bobPerson: string;

  /** `run`'s result, after checking that it made one statement whose text includes `marker`, reading fewer than `bound` rows. */
  const readsFew = async <T>(marker: string, run: () => Promise<T>, bound = FEW): Promise<T> => {
    const { result, reads } = await rowsReadBy(database, marker, run);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeLessThan(bound);
    return result;
  };

  beforeAll(async () => {
    database = await pg!.open();
    store = createStore(database.db);
    const orgs = new OrgService(store, systemClock);
    const { org, admin } = await orgs.init({ org: 'Acme', admin: 'alice' });
    const b = await orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme' });
    // Straight into the store: what the services check on the way is not this file's concern.
    eng = await store.workspaces.create({
      orgId: org.id,
      name: 'Eng',
      slug: 'eng',
      restricted: false,
      kind: 'structured',
    });
    ops = await store.workspaces.create({
      orgId: org.id,
      name: 'Ops',
      slug: 'ops',
      restricted: false,
      kind: 'structured',
    });
    alice = (await store.agents.personAgent(admin.id))!.id;
    bob = (await store.agents.personAgent(b.id))!.id;
    bobPerson = b.id;

    const E = sql`${eng.id}::uuid`;
    const O = sql`${ops.id}::uuid`;
    const A = sql`${alice}::uuid`;
    const B = sql`${bob}::uuid`;
    const seed: SQL[] = [
      // 1,000 agents of alice's with tokens, members of eng: bot1..bot1000.
      sql`insert into agents (id, owner_id, name, display_name, kind, token_hash)
        select md5('bot' || i)::uuid, ${admin.id}::uuid, 'bot' || i, 'Bot ' || i, 'agent', md5('token' || i) from generate_series(1, 1000) i`,
      sql`insert into agent_memberships (agent_id, workspace_id) select md5('bot' || i)::uuid, ${E} from generate_series(1, 1000) i`,

      // Conversations: N direct ones of the bots (dm1..), and those alice and bob share: a busy channel, a quiet
      // direct one, one bob has read, threads under the busy channel and two others, and a direct one in ops.
      sql`insert into conversations (id, workspace_id, kind, key, title, created_at)
        select md5('dm' || i)::uuid, ${E}, 'dm', 'dm' || i, 'dm ' || i, now() - i * interval '1 second' from generate_series(1, ${N}) i`,
      sql`insert into conversation_participants (conversation_id, agent_id) select md5('dm' || i)::uuid, md5('bot' || (1 + i % 1000))::uuid from generate_series(1, ${N}) i`,
      sql`insert into conversations (id, workspace_id, kind, key, title, parent_id) values
        (md5('busy')::uuid, ${E}, 'channel', 'busy', 'busy', null), (md5('quiet')::uuid, ${E}, 'dm', 'quiet', 'quiet', null),
        (md5('done')::uuid, ${E}, 'dm', 'done', 'done', null), (md5('chan2')::uuid, ${E}, 'channel', 'chan2', 'chan2', null),
        (md5('chan3')::uuid, ${E}, 'channel', 'chan3', 'chan3', null),
        (md5('busy-t1')::uuid, ${E}, 'thread', 'busy-t1', '', md5('busy')::uuid), (md5('busy-t2')::uuid, ${E}, 'thread', 'busy-t2', '', md5('busy')::uuid),
        (md5('busy-t3')::uuid, ${E}, 'thread', 'busy-t3', '', md5('busy')::uuid), (md5('chan2-t1')::uuid, ${E}, 'thread', 'chan2-t1', '', md5('chan2')::uuid),
        (md5('chan2-t2')::uuid, ${E}, 'thread', 'chan2-t2', '', md5('chan2')::uuid), (md5('chan3-t1')::uuid, ${E}, 'thread', 'chan3-t1', '', md5('chan3')::uuid),
        (md5('ops-dm')::uuid, ${O}, 'dm', 'ops-dm', 'ops dm', null)`,
      sql`insert into conversation_participants (conversation_id, agent_id)
        select md5(c)::uuid, a from unnest(array['busy', 'quiet', 'done', 'busy-t1', 'ops-dm']) c, unnest(array[${A}, ${B}]) a`,

      // Messages: N in the busy channel, one a minute, alice's but the third (bob's); four in the quiet one two hours
      // ago (one bob's), two in the read one three hours ago; one in chan2 ten seconds ago; one in ops just now.
      sql`insert into messages (id, workspace_id, conversation_id, sender_id, body, chain_id, created_at)
        select md5('busy' || i)::uuid, ${E}, md5('busy')::uuid, case when i = 3 then ${B} else ${A} end, 'busy ' || i, gen_random_uuid(), now() - i * interval '1 minute'
        from generate_series(1, ${N}) i`,
      sql`insert into messages (id, workspace_id, conversation_id, sender_id, body, chain_id, created_at)
        select md5('quiet' || i)::uuid, ${E}, md5('quiet')::uuid, case when i = 2 then ${B} else ${A} end, 'quiet ' || i, gen_random_uuid(), now() - interval '2 hours' - i * interval '1 minute'
        from generate_series(1, 4) i`,
      sql`insert into messages (id, workspace_id, conversation_id, sender_id, body, chain_id, created_at)
        select md5('done' || i)::uuid, ${E}, md5('done')::uuid, ${A}, 'done ' || i, gen_random_uuid(), now() - interval '3 hours' - i * interval '1 minute'
        from generate_series(1, 2) i`,
      sql`insert into messages (id, workspace_id, conversation_id, sender_id, body, chain_id, created_at) values
        (md5('heard')::uuid, ${E}, md5('chan2')::uuid, ${A}, 'heard', gen_random_uuid(), now() - interval '10 seconds'),
        (md5('ops1')::uuid, ${O}, md5('ops-dm')::uuid, ${A}, 'ops 1', gen_random_uuid(), now())`,
      // Bob's deliveries: every one of alice's messages, the one in chan2 overheard, the one in ops there.
      sql`insert into deliveries (message_id, agent_id, workspace_id, conversation_id, message_created_at, overheard, created_at)
        select id, ${B}, workspace_id, conversation_id, created_at, conversation_id = md5('chan2')::uuid, created_at from messages where sender_id = ${A}`,
      // A channel bob only listens to, a month back: N messages of bot1's a minute apart, all overheard by bob but
      // three written to him two months ago; the newest of those (addressed 1) is the latest he received there.
      sql`insert into conversations (id, workspace_id, kind, key, title) values (md5('listened')::uuid, ${E}, 'channel', 'listened', 'listened')`,
      sql`insert into messages (id, workspace_id, conversation_id, sender_id, body, chain_id, created_at)
        select md5('listened' || i)::uuid, ${E}, md5('listened')::uuid, md5('bot1')::uuid, 'listened ' || i, gen_random_uuid(), now() - interval '30 days' - i * interval '1 minute'
        from generate_series(1, ${N}) i
        union all select md5('addressed' || i)::uuid, ${E}, md5('listened')::uuid, md5('bot1')::uuid, 'addressed ' || i, gen_random_uuid(), now() - interval '60 days' - i * interval '1 minute'
        from generate_series(1, 3) i`,
      sql`insert into deliveries (message_id, agent_id, workspace_id, conversation_id, message_created_at, overheard, created_at)
        select id, ${B}, workspace_id, conversation_id, created_at, body like 'listened %', created_at from messages where conversation_id = md5('listened')::uuid`,
      // A channel where bob was addressed often, three months back: N messages of bot1's a minute apart, every other
      // one written to him but the newest 60, which he only overheard; the newest addressed to him is often 61.
      sql`insert into conversations (id, workspace_id, kind, key, title) values (md5('often')::uuid, ${E}, 'channel', 'often', 'often')`,
      sql`insert into messages (id, workspace_id, conversation_id, sender_id, body, chain_id, created_at)
        select md5('often' || i)::uuid, ${E}, md5('often')::uuid, md5('bot1')::uuid, 'often ' || i, gen_random_uuid(), now() - interval '90 days' - i * interval '1 minute'
        from generate_series(1, ${N}) i`,
      sql`insert into deliveries (message_id, agent_id, workspace_id, conversation_id, message_created_at, overheard, created_at)
        select md5('often' || i)::uuid, ${B}, ${E}, md5('often')::uuid, m.created_at, i <= 60 or i % 2 = 0, m.created_at
        from generate_series(1, ${N}) i join messages m on m.id = md5('often' || i)::uuid`,
      // Bob read the busy channel up to seven and a half minutes ago (busy 1..7 are newer), and all of the read one.
      sql`insert into read_markers (conversation_id, person_id, read_at) values
        (md5('busy')::uuid, ${bobPerson}::uuid, now() - interval '450 seconds'), (md5('done')::uuid, ${bobPerson}::uuid, now() - interval '1 hour')`,

      // The busy channel is bridged to Slack (every message mirrored) and to Teams (one of them).
      sql`insert into bridges (id, workspace_id, channel_id, surface, tenant_id, external_channel_id, external_ref) values
        (md5('slack-bridge')::uuid, ${E}, md5('busy')::uuid, 'slack', 'T1', 'C0BUSY', '{}'), (md5('teams-bridge')::uuid, ${E}, md5('busy')::uuid, 'teams', 'T1', '19:busy', '{}')`,
      sql`insert into bridge_messages (bridge_id, message_id, external_id, inbound)
        select md5('slack-bridge')::uuid, md5('busy' || i)::uuid, 'S' || i, i % 2 = 0 from generate_series(1, ${N}) i`,
      sql`insert into bridge_messages (bridge_id, message_id, external_id, inbound) values (md5('teams-bridge')::uuid, md5('busy42')::uuid, 'T42', false)`,

      // Intake: N automatic items, one from each direct conversation; the quiet one has two automatic items and one an agent filed.
      sql`insert into intake_items (id, workspace_id, title, kind, created_at)
        select md5('item' || i)::uuid, ${E}, 'item ' || i, 'bug', now() - i * interval '1 minute' from generate_series(1, ${N}) i`,
      sql`insert into intake_sources (item_id, message_id, workspace_id, conversation_id, surface)
        select md5('item' || i)::uuid, md5('item-message' || i)::uuid, ${E}, md5('dm' || i)::uuid, 'web' from generate_series(1, ${N}) i`,
      sql`insert into intake_items (id, workspace_id, title, kind, filed_by, created_at) values
        (md5('auto-old')::uuid, ${E}, 'auto old', 'question', null, now() - interval '2 days'),
        (md5('auto-new')::uuid, ${E}, 'auto new', 'question', null, now() - interval '1 hour'),
        (md5('filed')::uuid, ${E}, 'filed', 'bug', md5('bot1')::uuid, now())`,
      sql`insert into intake_sources (item_id, message_id, workspace_id, conversation_id, surface)
        select md5(k)::uuid, md5(k || '-message')::uuid, ${E}, md5('quiet')::uuid, 'web' from unnest(array['auto-old', 'auto-new', 'filed']) k`,

      // Listeners: N in 2,500 Slack channels, four bots each; one bot in C0LIVE; in C0IDLE only ones that do not
      // stand: alice (no token) and bot8 in ops (not a member there).
      sql`insert into channel_listeners (workspace_id, surface, channel_id, agent_id)
        select ${E}, 'slack', 'C' || (i / 4), md5('bot' || (1 + i % 1000))::uuid from generate_series(0, ${N} - 1) i`,
      sql`insert into channel_listeners (workspace_id, surface, channel_id, agent_id) values
        (${E}, 'slack', 'C0LIVE', md5('bot7')::uuid), (${E}, 'slack', 'C0IDLE', ${A}), (${O}, 'slack', 'C0IDLE', md5('bot8')::uuid)`,

      // Documents: N in eng (DOC-1..); ops has its own DOC-4321.
      sql`insert into collections (id, workspace_id, key, type, name, statuses) values
        (md5('eng-docs')::uuid, ${E}, 'docs', 'doc', 'Docs', '["draft"]'), (md5('ops-docs')::uuid, ${O}, 'docs', 'doc', 'Docs', '["draft"]')`,
      sql`insert into documents (workspace_id, collection_id, number, identifier, title, content, status)
        select ${E}, md5('eng-docs')::uuid, i, 'DOC-' || i, 'Document ' || i, 'content ' || i, 'draft' from generate_series(1, ${N}) i`,
      sql`insert into documents (workspace_id, collection_id, number, identifier, title, content, status)
        values (${O}, md5('ops-docs')::uuid, 4321, 'DOC-4321', 'Ops document', 'ops content', 'draft')`,
      sql`analyze`,
    ];
    for (const q of seed) await database.db.execute(q);
  }, 120_000);
  afterAll(() => database?.close());

  it('finds the bridged counterparts of a message by the message', async () => {
    const found = await readsFew('from "bridge_messages"', () => store.bridges.counterparts(uid('busy42')));
    expect(found.sort((x, y) => x.externalId!.localeCompare(y.externalId!))).toEqual([
      { bridgeId: uid('slack-bridge'), messageId: uid('busy42'), externalId: 'S42', inbound: true },
      { bridgeId: uid('teams-bridge'), messageId: uid('busy42'), externalId: 'T42', inbound: false },
    ]);
  });

  it("lists a person's conversations from their own, newest message first", async () => {
    const found = await readsFew('from "conversation_participants"', () =>
      store.chat.conversationsOf(bob, eng.id, ['dm', 'channel']),
    );
    // Not the thread (another kind), nor the direct conversation in ops.
    expect(found.map((c) => c.key)).toEqual(['busy', 'quiet', 'done']);
  });

  it("counts unread messages from the person's read marker on, not their own", async () => {
    const counts = await readsFew('"read_markers"', () =>
      store.chat.unreadCounts(bobPerson, bob, [uid('busy'), uid('quiet'), uid('done')]),
    );
    // busy 1..7 but bob's own busy 3; quiet, never opened: all but bob's own; done: read.
    expect(Object.fromEntries(counts)).toEqual({ [uid('busy')]: 6, [uid('quiet')]: 3 });
  });

  it("reads an inbox page newest first, a page's worth of rows", async () => {
    // Each of the 50 rows passes through a few joins (message, sender, owner, conversation): 50 times those, not N.
    const page = await readsFew('from "deliveries"', () => store.chat.inbox(bob, eng.id, 50), 1_000);
    const busy = Array.from({ length: 50 }, (_, i) => `busy ${i + 1}`).filter((b) => b !== 'busy 3');
    expect(page.map((e) => e.message.body)).toEqual(['heard', ...busy.slice(0, 49)]);
  });

  it('finds the latest message addressed to an agent lately, in the workspace', async () => {
    const since = new Date(Date.now() - 10 * 60_000);
    const latest = await readsFew('from "deliveries"', () => store.messages.latestReceivedSince(bob, eng.id, since));
    // Not the newer one in ops, nor the one bob only overheard.
    expect(latest).toMatchObject({ body: 'busy 1', conversationId: uid('busy') });
  });

  it('finds the latest message addressed to an agent in a conversation it mostly only overheard', async () => {
    // The deliveries written to bob there, not the conversation's N messages newest first past every overheard one.
    const latest = await readsFew('from "deliveries"', () => store.messages.latestReceived(bob, uid('listened')));
    // Not the newer ones he only overheard, nor those addressed to him in the busy channel since.
    expect(latest).toMatchObject({ id: uid('addressed1'), body: 'addressed 1', conversationId: uid('listened') });
    // In the channel where nearly every message is addressed to him, the newest of them; none where he only overheard.
    expect(await readsFew('from "deliveries"', () => store.messages.latestReceived(bob, uid('busy')))).toMatchObject({
      body: 'busy 1',
    });
    expect(await store.messages.latestReceived(bob, uid('chan2'))).toBeNull();
  });

  it('finds the latest message addressed to an agent in a conversation where it was addressed thousands of times', async () => {
    // Not every one of the 4,970 deliveries written to bob there, joined to their messages and sorted: the newest first.
    const latest = await readsFew('from "deliveries"', () => store.messages.latestReceived(bob, uid('often')));
    // Not the 60 newer ones he only overheard.
    expect(latest).toMatchObject({ id: uid('often61'), body: 'often 61', conversationId: uid('often') });
  });

  it('lists the threads under conversations', async () => {
    const found = await readsFew('from "conversations"', () =>
      store.chat.threadsUnder(eng.id, [uid('busy'), uid('chan2')]),
    );
    expect(found.sort()).toEqual(['busy-t1', 'busy-t2', 'busy-t3', 'chan2-t1', 'chan2-t2'].map(uid).sort());
  });

  it('finds the newest automatic intake item of a conversation', async () => {
    const item = await readsFew('from "intake_items"', () => store.intake.autoItemIn(eng.id, uid('quiet')));
    expect(item).toMatchObject({ id: uid('auto-new'), title: 'auto new' });
  });

  it('tells whether any standing agent listens in a channel', async () => {
    const anyFor = (channelId: string) =>
      readsFew('from "channel_listeners"', () => store.listening.anyFor({ surface: 'slack', channelId }));
    expect(await anyFor('C0LIVE')).toBe(true);
    expect(await anyFor('C0IDLE')).toBe(false);
    expect(await anyFor('C0NONE')).toBe(false);
  });

  it('finds a document by its identifier in another case, in its own workspace', async () => {
    const inEng = await readsFew('from "documents"', () => store.documents.getDocument(eng.id, 'doc-4321'));
    expect(inEng).toMatchObject({ identifier: 'DOC-4321', workspaceId: eng.id, content: 'content 4321' });
    const inOps = await readsFew('from "documents"', () => store.documents.getDocument(ops.id, 'Doc-4321'));
    expect(inOps).toMatchObject({ identifier: 'DOC-4321', workspaceId: ops.id, content: 'ops content' });
  });
});
