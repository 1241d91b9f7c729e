import { and, eq, gt, isNull } from 'drizzle-orm';
import type { OneTimeTokenRepo } from '../../core/ports.ts';
import type { Db } from './client.ts';
import { oneTimeTokens } from './schema.ts';

const columns = {
  id: oneTimeTokens.id,
  purpose: oneTimeTokens.purpose,
  personId: oneTimeTokens.personId,
  subject: oneTimeTokens.subject,
  expiresAt: oneTimeTokens.expiresAt,
  usedAt: oneTimeTokens.usedAt,
};

export class DrizzleTokenRepo implements OneTimeTokenRepo {
  constructor(private readonly db: Db) {}

  async create(t: Parameters<OneTimeTokenRepo['create']>[0]) {
    const [row] = await this.db
      .insert(oneTimeTokens)
      .values({
        purpose: t.purpose,
        tokenHash: t.tokenHash,
        personId: t.personId ?? null,
        subject: t.subject ?? null,
        expiresAt: t.expiresAt,
      })
      .returning(columns);
    return row;
  }

  async peek(tokenHash: string, purpose: 'signin' | 'link') {
    const [row] = await this.db
      .select(columns)
      .from(oneTimeTokens)
      .where(and(eq(oneTimeTokens.tokenHash, tokenHash), eq(oneTimeTokens.purpose, purpose)));
    return row ?? null;
  }

  async consume(tokenHash: string, purpose: 'signin' | 'link', now: Date) {
    // One conditional UPDATE: of two concurrent uses, exactly one matches.
    const [row] = await this.db
      .update(oneTimeTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(oneTimeTokens.tokenHash, tokenHash),
          eq(oneTimeTokens.purpose, purpose),
          isNull(oneTimeTokens.usedAt),
          gt(oneTimeTokens.expiresAt, now),
        ),
      )
      .returning(columns);
    return row ?? null;
  }
}
