import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, getTableColumns, gte, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type {
  Conversation,
  InboxItem,
  Message,
  NewMessage,
  SearchHit,
  SearchQuery,
  Sender,
} from '../../core/messaging/message.ts';
import type { MessageRepo, Posted, PostTargets, SendGate } from '../../core/ports.ts';
import { HIT_END, HIT_START, markedSnippet } from '../../core/format/markdown.ts';
import { preparedOnce, runNamed, type Db } from './client.ts';
import { isUuid } from './ids.ts';
import { rowsOf } from './org-repo.ts';
import {
  agents,
  conversationParticipants,
  conversations,
  deliveries,
  messages,
  people,
  usage,
  workspaces,
} from './schema.ts';
import { messageColumns, columnList, fromRow, senderColumns, takeUnreadQuery } from './message-queries.ts';

/** How many messages a sender wrote in a conversation since `since`, counted up to `max` (all a rate check needs). */
const sentCount = (
  senderId: string,
  conversationId: string,
  since: Date,
  max: number,
) => sql`(select count(*)::int from (
  select 1 from ${messages} where sender_id = ${senderId}::uuid and conversation_id = ${conversationId}::uuid
    and created_at >= ${since.toISOString()}::timestamptz limit ${max}::int) recent)`;

const conversationColumns = getTableColumns(conversations);

export class DrizzleMessageRepo implements MessageRepo {
  constructor(private readonly db: Db) {}

  async conversation(c: Parameters<MessageRepo['conversation']>[0]): Promise<Conversation> {
    // One named statement whether it is new or not: the insert, else the row that stopped it (the statement's
    // snapshot does not see its own insert, hence the union). Columns named, as a named statement's must not change.
    const result = await runNamed(
      this.db,
      'conversation_find_or_create',
      sql`
      with created as (
        insert into ${conversations} (workspace_id, kind, key, title, surface, external_ref, permalink, parent_id)
        values (${c.workspaceId}::uuid, ${c.kind}::text, ${c.key}::text, ${c.title ?? ''}::text, ${c.surface ?? 'mcp'}::text,
          ${c.externalRef ? JSON.stringify(c.externalRef) : null}::jsonb, ${c.permalink ?? null}::text, ${c.parentId ?? null}::uuid)
        on conflict do nothing
        returning ${columnList(conversationColumns)})
      select ${columnList(conversationColumns)} from created
      union all
      select ${columnList(conversationColumns)} from ${conversations}
      where workspace_id = ${c.workspaceId}::uuid and key = ${c.key}::text and not exists (select 1 from created)`,
    );
    const [row] = rowsOf<Record<string, unknown>>(result);
    if (row) return fromRow<Conversation>(conversationColumns, row);
    // Another transaction inserted it after this statement's snapshot was taken: it is committed now.
    return (await this.findConversation(c.workspaceId, c.key))!;
  }

  async findConversation(workspaceId: string, key: string) {
    const [row] = await preparedOnce(this.db, 'conversation_by_key', () =>
      this.db
        .select()
        .from(conversations)
        .where(
          and(
            eq(conversations.workspaceId, sql.placeholder('workspace')),
            eq(conversations.key, sql.placeholder('key')),
          ),
        ),
    ).execute({ workspace: workspaceId, key });
    return row ?? null;
  }

  async getConversation(workspaceId: string, id: string) {
    if (!isUuid(id)) return null;
    const [row] = await preparedOnce(this.db, 'conversation_by_id', () =>
      this.db
        .select()
        .from(conversations)
        .where(
          and(eq(conversations.workspaceId, sql.placeholder('workspace')), eq(conversations.id, sql.placeholder('id'))),
        ),
    ).execute({ workspace: workspaceId, id });
    return row ?? null;
  }

  async setConversationPermalink(id: string, permalink: string) {
    await this.db.update(conversations).set({ permalink }).where(eq(conversations.id, id));
  }

  async requoteTitle(id: string, from: string, to: string) {
    if (!isUuid(id) || !from || from === to) return false;
    // Only a chat conversation's title ending in `: <from>` (inbound-service.ts titleOf), never a channel's name.
    const quoted = `: ${from}`;
    const rows = await this.db
      .update(conversations)
      .set({
        title: sql`left(${conversations.title}, length(${conversations.title}) - length(${from}::text)) || ${to}::text`,
      })
      .where(
        and(
          eq(conversations.id, id),
          eq(conversations.kind, 'external'),
          sql`right(${conversations.title}, length(${quoted}::text)) = ${quoted}::text`,
        ),
      )
      .returning({ id: conversations.id });
    return rows.length > 0;
  }

  async addParticipants(conversationId: string, agentIds: string[]) {
    if (!agentIds.length) return;
    await this.db
      .insert(conversationParticipants)
      .values(agentIds.map((agentId) => ({ conversationId, agentId })))
      .onConflictDoNothing();
  }

  async participants(conversationId: string) {
    const rows = await this.db
      .select({ id: conversationParticipants.agentId })
      .from(conversationParticipants)
      .where(eq(conversationParticipants.conversationId, conversationId));
    return rows.map((r) => r.id);
  }

  async insert(m: NewMessage): Promise<Message> {
    const [row] = await this.db.insert(messages).values(m).returning(messageColumns);
    return row;
  }

  post(m: NewMessage, to: PostTargets): Promise<{ message: Message }>;
  post(m: NewMessage, to: PostTargets, gate: SendGate): Promise<Posted>;
  async post(m: NewMessage, to: PostTargets, gate?: SendGate): Promise<Posted | { message: Message }> {
    // One statement whose text never changes (the lists go as JSON parameters), run as a named statement. The
    // participants and deliveries are written by data-modifying WITH queries from the stored row: with a gate
    // that refuses, nothing is. The message's id is chosen here (foreign keys are checked when the statement ends).
    const id = m.id ?? randomUUID();
    const delivered = new Set(to.deliverTo);
    const deliveryRows = [
      ...[...delivered].map((agent) => ({ agent, overheard: false })),
      ...[...new Set(to.overheard ?? [])].filter((a) => !delivered.has(a)).map((agent) => ({ agent, overheard: true })),
    ];
    const row = JSON.stringify({
      id,
      workspace_id: m.workspaceId,
      conversation_id: m.conversationId,
      sender_id: m.senderId,
      body: m.body,
      reply_to: m.replyTo,
      chain_id: m.chainId,
      hop: m.hop,
      asker_person_id: m.askerPersonId,
      asker_identity_id: m.askerIdentityId,
      surface: m.surface,
      permalink: m.permalink ?? null,
      external_id: m.externalId ?? null,
      created_at: m.createdAt ?? null,
    });
    const checks = gate
      ? sql`gate as (select
          ${sentCount(m.senderId, m.conversationId, gate.since, gate.rateMax)} as sent,
          (select id from ${messages} where workspace_id = ${m.workspaceId}::uuid and conversation_id = ${m.conversationId}::uuid and external_id = ${gate.externalId}::text limit 1) as earlier_id),
        counted as (
          insert into ${usage} (org_id, month, messages)
          select ${gate.count.orgId}::uuid, ${gate.count.month}::text, ${gate.count.n}::int from gate
          where gate.earlier_id is null and gate.sent < ${gate.rateMax}::int and (${gate.count.limit}::int is null or ${gate.count.n}::int <= ${gate.count.limit}::int)
          on conflict (org_id, month) do update set messages = ${usage}.messages + excluded.messages
            where ${gate.count.limit}::int is null or ${usage}.messages + excluded.messages <= ${gate.count.limit}::int
          returning messages)`
      : sql`gate as (select 0 as sent, null::uuid as earlier_id), counted as (select null::int as messages)`;
    const result = await runNamed(
      this.db,
      gate ? 'message_send' : 'message_post',
      sql`
      with ${checks},
      stored as (
        insert into ${messages} (id, workspace_id, conversation_id, sender_id, body, reply_to, chain_id, hop, asker_person_id,
          asker_identity_id, surface, permalink, external_id, created_at)
        select r.id, r.workspace_id, r.conversation_id, r.sender_id, r.body, r.reply_to, r.chain_id, r.hop, r.asker_person_id,
          r.asker_identity_id, r.surface, r.permalink, r.external_id, coalesce(r.created_at, now())
        from jsonb_to_record(${row}::jsonb) as r (id uuid, workspace_id uuid, conversation_id uuid, sender_id uuid, body text,
          reply_to uuid, chain_id uuid, hop int, asker_person_id uuid, asker_identity_id uuid, surface text, permalink text,
          external_id text, created_at timestamptz)
        where exists (select 1 from counted)
        returning ${columnList(messageColumns)}),
      joined as (
        insert into ${conversationParticipants} (conversation_id, agent_id)
        select s.conversation_id, p::uuid from stored s, jsonb_array_elements_text(${JSON.stringify([...new Set(to.participants)])}::jsonb) p
        on conflict do nothing),
      delivering as (
        insert into ${deliveries} (message_id, agent_id, workspace_id, conversation_id, message_created_at, overheard)
        select s.id, (d->>'agent')::uuid, s.workspace_id, s.conversation_id, s.created_at, (d->>'overheard')::boolean from stored s, jsonb_array_elements(${JSON.stringify(deliveryRows)}::jsonb) d
        on conflict do nothing)
      select gate.sent, gate.earlier_id, (select messages from counted) as total,
        (select row_to_json(stored) from stored) as message
      from gate`,
    );
    const [r] = rowsOf<{ sent: number; earlier_id: string | null; total: number | null; message: unknown }>(result);
    const message =
      r.message === null
        ? null
        : fromRow<Message>(
            messageColumns,
            typeof r.message === 'string' ? JSON.parse(r.message) : (r.message as Record<string, unknown>),
          );
    return {
      message,
      earlier: r.earlier_id ? await this.get(m.workspaceId, r.earlier_id) : null,
      sentSince: Number(r.sent),
      total: r.total === null ? null : Number(r.total),
    };
  }

  async get(workspaceId: string, id: string) {
    if (!isUuid(id)) return null;
    const [row] = await this.db
      .select(messageColumns)
      .from(messages)
      .where(and(eq(messages.workspaceId, workspaceId), eq(messages.id, id)));
    return row ?? null;
  }

  async byExternalId(workspaceId: string, conversationId: string, externalId: string) {
    if (!isUuid(conversationId)) return null;
    const [row] = await this.db
      .select(messageColumns)
      .from(messages)
      .where(
        and(
          eq(messages.workspaceId, workspaceId),
          eq(messages.conversationId, conversationId),
          eq(messages.externalId, externalId),
        ),
      )
      .limit(1);
    return row ?? null;
  }

  async edit(workspaceId: string, id: string, body: string, at: Date) {
    if (!isUuid(id)) return false;
    const rows = await this.db
      .update(messages)
      .set({ body, editedAt: at })
      .where(and(eq(messages.workspaceId, workspaceId), eq(messages.id, id)))
      .returning({ id: messages.id });
    return rows.length > 0;
  }

  async remove(workspaceId: string, id: string) {
    if (!isUuid(id)) return null;
    const [row] = await this.db
      .delete(messages)
      .where(and(eq(messages.workspaceId, workspaceId), eq(messages.id, id)))
      .returning(messageColumns);
    return row ?? null;
  }

  async setPermalink(messageId: string, permalink: string, externalId?: string) {
    const rows = await this.db
      .update(messages)
      .set({ permalink, ...(externalId ? { externalId } : {}) })
      .where(eq(messages.id, messageId))
      .returning({ id: messages.id });
    return rows.length > 0;
  }

  async notePostAttempt(messageId: string, at: Date) {
    // One worker holds the post's outbox entry at a time, so read-then-write does not race.
    const [row] = await this.db
      .select({ startedAt: messages.postStartedAt })
      .from(messages)
      .where(eq(messages.id, messageId));
    if (row && !row.startedAt)
      await this.db.update(messages).set({ postStartedAt: at }).where(eq(messages.id, messageId));
    return row?.startedAt ?? null;
  }

  async overheardIn(agentId: string, conversationId: string) {
    const [row] = await this.db
      .select({ id: deliveries.messageId })
      .from(deliveries)
      .innerJoin(messages, eq(messages.id, deliveries.messageId))
      .where(
        and(
          eq(deliveries.agentId, agentId),
          eq(deliveries.overheard, true),
          eq(messages.conversationId, conversationId),
        ),
      )
      .limit(1);
    return Boolean(row);
  }

  async sentSince(agentId: string, conversationId: string, since: Date, max: number) {
    const [row] = rowsOf<{ n: number }>(
      await this.db.execute(sql`select ${sentCount(agentId, conversationId, since, max)} as n`),
    );
    return Number(row?.n ?? 0);
  }

  async latestReceived(agentId: string, conversationId: string) {
    // The newest message addressed to the agent there, by the message's time, then the delivery's, then the hop. The
    // deliveries carry their message's conversation and time, so their addressed index holds them in that order: the
    // walk stops after the newest delivery and any tied with it (only the hop, on the message, tells those apart),
    // never reading the conversation's messages past every overheard one, nor all of the agent's deliveries there.
    // Stopped by the statement itself, not left to the planner: counted apart, an agent's deliveries and a
    // conversation's look like a handful together, and it would read all of a busy direct conversation's and sort them.
    // Named: every agent send into a conversation asks, and the statement's text never changes.
    const result = await runNamed(
      this.db,
      'latest_received',
      sql`
      select ${columnList(messageColumns, 'm')} from (
        select message_id from ${deliveries}
        where agent_id = ${agentId}::uuid and conversation_id = ${conversationId}::uuid and not overheard
        order by message_created_at desc, created_at desc fetch first 1 row with ties) d
      join ${messages} m on m.id = d.message_id
      order by m.hop desc limit 1`,
    );
    const [row] = rowsOf<Record<string, unknown>>(result);
    return row ? fromRow<Message>(messageColumns, row) : null;
  }

  async latestReceivedSince(agentId: string, workspaceId: string, since: Date) {
    const [row] = await this.db
      .select(messageColumns)
      .from(deliveries)
      .innerJoin(messages, eq(messages.id, deliveries.messageId))
      // The messages' workspace named too, so the workspace's messages since `since` are read by their date index.
      .where(
        and(
          eq(deliveries.agentId, agentId),
          eq(deliveries.workspaceId, workspaceId),
          eq(deliveries.overheard, false),
          eq(messages.workspaceId, workspaceId),
          gte(messages.createdAt, since),
        ),
      )
      .orderBy(desc(messages.createdAt), desc(deliveries.createdAt), desc(messages.hop))
      .limit(1);
    return row ?? null;
  }

  async involves(agentId: string, messageId: string) {
    if (!isUuid(messageId)) return false;
    const [row] = await this.db
      .select({ id: messages.id })
      .from(messages)
      .leftJoin(deliveries, and(eq(deliveries.messageId, messages.id), eq(deliveries.agentId, agentId)))
      .where(and(eq(messages.id, messageId), or(eq(messages.senderId, agentId), eq(deliveries.agentId, agentId))))
      .limit(1);
    return Boolean(row);
  }

  async involvedIn(agentId: string, messageIds: string[]) {
    const ids = [...new Set(messageIds.filter(isUuid))];
    if (!ids.length) return new Set<string>();
    const rows = await this.db
      .selectDistinct({ id: messages.id })
      .from(messages)
      .leftJoin(deliveries, and(eq(deliveries.messageId, messages.id), eq(deliveries.agentId, agentId)))
      .where(and(inArray(messages.id, ids), or(eq(messages.senderId, agentId), eq(deliveries.agentId, agentId))));
    return new Set(rows.map((r) => r.id));
  }

  async takeUnread(agentId: string, workspaceId: string, limit: number) {
    const rows = await preparedOnce(this.db, 'inbox_take', takeUnreadQuery(this.db)).execute({
      agent: agentId,
      workspace: workspaceId,
      limit,
      now: new Date().toISOString(),
    });
    const items: InboxItem[] = rows.map((r) => ({
      message: r.message,
      sender: r.sender as Sender,
      conversation: r.conversation,
      overheard: r.overheard,
      asker: { personId: r.message.askerPersonId, handle: r.askerHandle, identityId: r.message.askerIdentityId },
    }));
    // Nothing taken: no row came back to carry the count. Asked for at least one, nothing is unread but what other
    // readers hold locked as they take it (a waiting `subscribe` comes here first, so this saves it a statement).
    const remaining = rows.length
      ? Math.max(0, Number(rows[0].remaining))
      : limit > 0
        ? 0
        : await this.unreadCount(agentId, workspaceId);
    return { items, remaining };
  }

  async returnUnread(agentId: string, workspaceId: string, messageIds: string[]) {
    const ids = messageIds.filter(isUuid);
    if (!ids.length) return 0;
    const rows = await this.db
      .update(deliveries)
      .set({ readAt: null })
      .where(
        and(
          eq(deliveries.agentId, agentId),
          eq(deliveries.workspaceId, workspaceId),
          inArray(deliveries.messageId, ids),
          isNotNull(deliveries.readAt),
        ),
      )
      .returning({ id: deliveries.messageId });
    return rows.length;
  }

  async unreadCount(agentId: string, workspaceId: string) {
    const [row] = await this.db
      .select({ n: count() })
      .from(deliveries)
      .where(and(eq(deliveries.agentId, agentId), eq(deliveries.workspaceId, workspaceId), isNull(deliveries.readAt)));
    return Number(row.n);
  }

  async unreadCounts(agentId: string, workspaceId: string) {
    const rows = await this.db
      .select({ overheard: deliveries.overheard, n: count() })
      .from(deliveries)
      .where(and(eq(deliveries.agentId, agentId), eq(deliveries.workspaceId, workspaceId), isNull(deliveries.readAt)))
      .groupBy(deliveries.overheard);
    return {
      addressed: Number(rows.find((r) => !r.overheard)?.n ?? 0),
      overheard: Number(rows.find((r) => r.overheard)?.n ?? 0),
    };
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    const tsq = sql`websearch_to_tsquery('english', ${q.text})`;
    const conds = [
      eq(messages.workspaceId, q.workspaceId),
      sql`${messages.search} @@ ${tsq}`,
      gte(messages.createdAt, q.since),
    ];
    if (q.fromAgentId) conds.push(eq(messages.senderId, q.fromAgentId));
    if (q.conversationId) conds.push(eq(messages.conversationId, q.conversationId));
    if (q.agentId) {
      // Written as a set of the agent's own messages (received, then sent): the planner can start
      // from it, usually far smaller than the matches of a common word (measured 2-4x faster).
      conds.push(sql`${messages.id} in (
        select ${deliveries.messageId} from ${deliveries} where ${deliveries.agentId} = ${q.agentId} and ${deliveries.workspaceId} = ${q.workspaceId}
        union all select own.id from ${messages} own where own.sender_id = ${q.agentId} and own.workspace_id = ${q.workspaceId})`);
    }
    const rank = sql<number>`ts_rank(${messages.search}, ${tsq})`;
    // Ranking many matches looks costly enough to the planner to JIT-compile the query, which
    // takes longer than running it (tens of ms on every search); off for this transaction only.
    const rows = await this.db.transaction(async (tx) => {
      await tx.execute(sql`set local jit = off`);
      return tx
        .select({
          message: messageColumns,
          sender: senderColumns,
          rank,
          snippet: sql<string>`ts_headline('english', ${messages.body}, ${tsq}, ${`MaxWords=20, MinWords=5, StartSel=${HIT_START}, StopSel=${HIT_END}`})`,
        })
        .from(messages)
        .innerJoin(agents, eq(agents.id, messages.senderId))
        .innerJoin(people, eq(people.id, agents.ownerId))
        .where(and(...conds))
        .orderBy(desc(rank), desc(messages.createdAt), desc(messages.id))
        .limit(q.limit)
        .offset(q.offset ?? 0);
    });
    return rows.map((r) => ({
      message: r.message,
      sender: r.sender as Sender,
      rank: Number(r.rank),
      snippet: markedSnippet(r.snippet),
    }));
  }

  async listConversation(workspaceId: string, conversationId: string, limit: number) {
    const rows = await this.db
      .select(messageColumns)
      .from(messages)
      .where(and(eq(messages.workspaceId, workspaceId), eq(messages.conversationId, conversationId)))
      .orderBy(desc(messages.createdAt))
      .limit(limit);
    return rows.reverse();
  }

  async purgeOlderThan(orgId: string, cutoff: Date) {
    const res = await this.db.execute(sql`
      with gone as (delete from ${messages} where ${messages.createdAt} < ${cutoff}
        and ${messages.workspaceId} in (select ${workspaces.id} from ${workspaces} where ${workspaces.orgId} = ${orgId})
        returning 1)
      select count(*)::int as n from gone`);
    return Number(rowsOf<{ n: number }>(res)[0]?.n ?? 0);
  }
}
