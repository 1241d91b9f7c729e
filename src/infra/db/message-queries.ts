// What the messages repository selects and how it reads rows back: a message's
// and its sender's columns, what an inbox item shows, and the one statement that
// takes an agent's unread messages.
import { and, asc, count, eq, inArray, isNull, sql, type Column, type SQL, type WithSubquery } from 'drizzle-orm';
import type { Db } from './client.ts';
import { agents, conversations, deliveries, messages, people } from './schema.ts';

export const messageColumns = {
  id: messages.id,
  workspaceId: messages.workspaceId,
  conversationId: messages.conversationId,
  senderId: messages.senderId,
  body: messages.body,
  replyTo: messages.replyTo,
  chainId: messages.chainId,
  hop: messages.hop,
  askerPersonId: messages.askerPersonId,
  askerIdentityId: messages.askerIdentityId,
  surface: messages.surface,
  permalink: messages.permalink,
  externalId: messages.externalId,
  createdAt: messages.createdAt,
  editedAt: messages.editedAt,
};
/**
 * The columns' names for a statement written out (`insert … returning`, `select` from a WITH query), each named as
 * `alias`'s when one is given (a statement joining tables that share column names).
 */
export const columnList = (columns: Record<string, Column>, alias?: string) =>
  sql.raw(
    Object.values(columns)
      .map((c) => `${alias ? `${alias}.` : ''}"${c.name}"`)
      .join(', '),
  );

/** A row read by column name (a raw statement's, or its JSON) into the columns' keys, each through its column's own mapping. */
export function fromRow<T>(columns: Record<string, Column>, row: Record<string, unknown>): T {
  return Object.fromEntries(
    Object.entries(columns).map(([key, c]) => {
      const v = row[c.name];
      return [key, v === null || v === undefined ? null : c.mapFromDriverValue(v)];
    }),
  ) as T;
}

export const senderColumns = {
  id: agents.id,
  name: agents.name,
  person: people.handle,
  displayName: agents.displayName,
  avatarUrl: agents.avatarUrl,
  kind: agents.kind,
};

export const inboxColumns = {
  message: messageColumns,
  sender: senderColumns,
  conversation: {
    id: conversations.id,
    kind: conversations.kind,
    title: conversations.title,
    surface: conversations.surface,
    permalink: conversations.permalink,
  },
  askerHandle: sql<string | null>`(select p.handle from people p where p.id = ${messages.askerPersonId})`,
  overheard: deliveries.overheard,
};

/** The inbox items of the deliveries `where` picks, in inbox order, with `extra` columns; `ctes` are the WITH queries `where` uses. */
export function inboxRows<E extends Record<string, SQL.Aliased | SQL>>(
  db: Db,
  where: SQL | undefined,
  extra: E = {} as E,
  ctes: WithSubquery[] = [],
) {
  return db
    .with(...ctes)
    .select({ ...inboxColumns, ...extra })
    .from(deliveries)
    .innerJoin(messages, eq(messages.id, deliveries.messageId))
    .innerJoin(agents, eq(agents.id, messages.senderId))
    .innerJoin(people, eq(people.id, agents.ownerId))
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(where)
    .orderBy(asc(deliveries.overheard), asc(deliveries.createdAt), asc(deliveries.messageId));
}

/**
 * One statement, so one round trip and no transaction to open: it picks the oldest unread deliveries, locking them
 * so two concurrent readers never both get the same message (addressed ones first: a busy channel an agent listens
 * to never holds back what was written to it), marks them read and returns them with what an inbox item shows.
 */
export const takeUnreadQuery = (db: Db) => () => {
  const [agent, workspace] = [sql.placeholder('agent'), sql.placeholder('workspace')];
  const unread = and(eq(deliveries.agentId, agent), eq(deliveries.workspaceId, workspace), isNull(deliveries.readAt));
  const picked = db
    .$with('picked')
    .as(
      db
        .select({ id: deliveries.messageId })
        .from(deliveries)
        .where(unread)
        .orderBy(asc(deliveries.overheard), asc(deliveries.createdAt), asc(deliveries.messageId))
        .limit(sql.placeholder('limit'))
        .for('update', { skipLocked: true }),
    );
  const taken = db.$with('taken').as(
    db
      .update(deliveries)
      .set({ readAt: sql`${sql.placeholder('now')}::timestamptz` })
      .where(
        and(eq(deliveries.agentId, agent), inArray(deliveries.messageId, db.select({ id: picked.id }).from(picked))),
      )
      .returning({ id: deliveries.messageId }),
  );
  // The statement sees the deliveries as they were before it: the unread then, less those it took.
  const unreadBefore = db.select({ n: count() }).from(deliveries).where(unread);
  return inboxRows(
    db,
    and(eq(deliveries.agentId, agent), inArray(deliveries.messageId, db.select({ id: taken.id }).from(taken))),
    {
      remaining: sql<number>`(${unreadBefore}) - (select count(*) from ${taken})`,
    },
    [picked, taken],
  );
};
