import { and, eq, inArray, lte, ne } from 'drizzle-orm';
import type { PresenceRepo } from '../../core/agents/presence.ts';
import type { SessionRepo } from '../../core/organizations/sessions.ts';
import type { Db } from './client.ts';
import { agentPresence, webSessions } from './schema.ts';

/** Every column but the token hash. */
const columns = {
  id: webSessions.id,
  personId: webSessions.personId,
  createdAt: webSessions.createdAt,
  lastSeenAt: webSessions.lastSeenAt,
  expiresAt: webSessions.expiresAt,
};

export class DrizzleSessionRepo implements SessionRepo {
  constructor(private readonly db: Db) {}

  async create(s: { tokenHash: string; personId: string; now: Date; expiresAt: Date }) {
    const [row] = await this.db
      .insert(webSessions)
      .values({
        tokenHash: s.tokenHash,
        personId: s.personId,
        createdAt: s.now,
        lastSeenAt: s.now,
        expiresAt: s.expiresAt,
      })
      .returning(columns);
    return row;
  }

  async byTokenHash(tokenHash: string) {
    const [row] = await this.db.select(columns).from(webSessions).where(eq(webSessions.tokenHash, tokenHash));
    return row ?? null;
  }

  async touch(id: string, at: Date) {
    await this.db.update(webSessions).set({ lastSeenAt: at }).where(eq(webSessions.id, id));
  }

  async delete(id: string) {
    await this.db.delete(webSessions).where(eq(webSessions.id, id));
  }

  async deleteForPerson(personId: string, exceptId?: string) {
    const rows = await this.db
      .delete(webSessions)
      .where(
        exceptId
          ? and(eq(webSessions.personId, personId), ne(webSessions.id, exceptId))
          : eq(webSessions.personId, personId),
      )
      .returning({ id: webSessions.id });
    return rows.length;
  }

  async deleteExpired(now: Date) {
    const rows = await this.db
      .delete(webSessions)
      .where(lte(webSessions.expiresAt, now))
      .returning({ id: webSessions.id });
    return rows.length;
  }
}

export class DrizzlePresenceRepo implements PresenceRepo {
  constructor(private readonly db: Db) {}

  async touch(agentId: string, at: Date) {
    await this.db
      .insert(agentPresence)
      .values({ agentId, lastSeenAt: at })
      .onConflictDoUpdate({ target: agentPresence.agentId, set: { lastSeenAt: at } });
  }

  async lastSeen(agentIds: string[]) {
    const out = new Map<string, Date>();
    if (!agentIds.length) return out;
    const rows = await this.db.select().from(agentPresence).where(inArray(agentPresence.agentId, agentIds));
    for (const r of rows) out.set(r.agentId, r.lastSeenAt);
    return out;
  }
}
