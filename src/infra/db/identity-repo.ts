import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type {
  ExternalIdentity,
  ExternalIdentityRepo,
  ExternalKey,
  ExternalProfile,
} from '../../core/surfaces/surface-ports.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { externalIdentities } from './schema.ts';

const columns = {
  id: externalIdentities.id,
  surface: externalIdentities.surface,
  tenantId: externalIdentities.tenantId,
  externalUserId: externalIdentities.externalUserId,
  personId: externalIdentities.personId,
  displayName: externalIdentities.displayName,
  email: externalIdentities.email,
  avatarUrl: externalIdentities.avatarUrl,
  profileFetchedAt: externalIdentities.profileFetchedAt,
  linkedAt: externalIdentities.linkedAt,
  linkPromptedAt: externalIdentities.linkPromptedAt,
  createdAt: externalIdentities.createdAt,
};

const byKey = (k: ExternalKey) =>
  and(
    eq(externalIdentities.surface, k.surface),
    eq(externalIdentities.tenantId, k.tenantId),
    eq(externalIdentities.externalUserId, k.externalUserId),
  );

/** External identities (chat users) on PostgreSQL or PGlite; one row per surface, tenant and user. */
export class DrizzleExternalIdentityRepo implements ExternalIdentityRepo {
  constructor(private readonly db: Db) {}

  async upsert(key: ExternalKey, profile?: ExternalProfile): Promise<ExternalIdentity> {
    const values = {
      ...key,
      ...(profile
        ? {
            displayName: profile.displayName,
            email: profile.email ?? null,
            avatarUrl: profile.avatarUrl ?? null,
            profile: profile.details ?? null,
            profileFetchedAt: profile.fetchedAt,
          }
        : {}),
    };
    // One statement either way, so two first messages from the same person at once make one row.
    const [row] = profile
      ? await this.db
          .insert(externalIdentities)
          .values(values)
          .onConflictDoUpdate({
            target: [externalIdentities.surface, externalIdentities.tenantId, externalIdentities.externalUserId],
            set: {
              displayName: sql`excluded.display_name`,
              email: sql`excluded.email`,
              avatarUrl: sql`excluded.avatar_url`,
              profile: sql`excluded.profile`,
              profileFetchedAt: sql`excluded.profile_fetched_at`,
              updatedAt: sql`now()`,
            },
          })
          .returning(columns)
      : await this.db.insert(externalIdentities).values(values).onConflictDoNothing().returning(columns);
    return row ?? (await this.find(key))!;
  }

  async find(key: ExternalKey) {
    const [row] = await this.db.select(columns).from(externalIdentities).where(byKey(key)).limit(1);
    return row ?? null;
  }

  async get(id: string) {
    if (!isUuid(id)) return null;
    const [row] = await this.db.select(columns).from(externalIdentities).where(eq(externalIdentities.id, id)).limit(1);
    return row ?? null;
  }

  async link(id: string, personId: string, at: Date) {
    if (!isUuid(id)) return null;
    // Conditional: an identity already linked (to anyone) is never silently moved.
    const [row] = await this.db
      .update(externalIdentities)
      .set({ personId, linkedAt: at, updatedAt: at })
      .where(and(eq(externalIdentities.id, id), isNull(externalIdentities.personId)))
      .returning(columns);
    return row ?? null;
  }

  async unlink(id: string, personId: string, at: Date) {
    if (!isUuid(id) || !isUuid(personId)) return null;
    // Conditional: only the person it is linked to can remove the link.
    const [row] = await this.db
      .update(externalIdentities)
      .set({ personId: null, linkedAt: null, updatedAt: at })
      .where(and(eq(externalIdentities.id, id), eq(externalIdentities.personId, personId)))
      .returning(columns);
    return row ?? null;
  }

  async claimLinkPrompt(id: string, at: Date) {
    if (!isUuid(id)) return false;
    // One conditional UPDATE: of two first messages at once, exactly one claims the prompt.
    const rows = await this.db
      .update(externalIdentities)
      .set({ linkPromptedAt: at })
      .where(and(eq(externalIdentities.id, id), isNull(externalIdentities.linkPromptedAt)))
      .returning({ id: externalIdentities.id });
    return rows.length === 1;
  }

  async releaseLinkPrompt(id: string) {
    if (!isUuid(id)) return;
    await this.db.update(externalIdentities).set({ linkPromptedAt: null }).where(eq(externalIdentities.id, id));
  }

  async listForPerson(personId: string) {
    if (!isUuid(personId)) return [];
    return this.db
      .select(columns)
      .from(externalIdentities)
      .where(eq(externalIdentities.personId, personId))
      .orderBy(asc(externalIdentities.linkedAt), asc(externalIdentities.id));
  }

  async findMany(surface: ExternalIdentity['surface'], tenantId: string, externalUserIds: string[]) {
    if (!externalUserIds.length) return [];
    return this.db
      .select(columns)
      .from(externalIdentities)
      .where(
        and(
          eq(externalIdentities.surface, surface),
          eq(externalIdentities.tenantId, tenantId),
          inArray(externalIdentities.externalUserId, externalUserIds),
        ),
      );
  }
}
