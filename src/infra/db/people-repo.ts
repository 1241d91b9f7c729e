import { eq } from 'drizzle-orm';
import type { PeopleRepo } from '../../core/ports.ts';
import type { Person } from '../../core/entities.ts';
import type { Db } from './client.ts';
import { uniqueOr } from './errors.ts';
import { isUuid } from './ids.ts';
import { people } from './schema.ts';

/** Every column but the password hash, which is read only by `passwordHash`. */
export const personColumns = {
  id: people.id,
  handle: people.handle,
  displayName: people.displayName,
  email: people.email,
  createdAt: people.createdAt,
};

export class DrizzlePeopleRepo implements PeopleRepo {
  constructor(private readonly db: Db) {}

  async create(p: { handle: string; displayName: string; email?: string | null }): Promise<Person> {
    const [row] = await uniqueOr(
      () =>
        this.db
          .insert(people)
          .values({ handle: p.handle, displayName: p.displayName, email: p.email ?? null })
          .returning(personColumns),
      `The handle "${p.handle}"${p.email ? ` or the email ${p.email}` : ''} is already taken; choose another.`,
    );
    return row;
  }

  async list() {
    return this.db.select(personColumns).from(people).orderBy(people.handle);
  }

  async get(idOrHandle: string) {
    const [row] = await this.db
      .select(personColumns)
      .from(people)
      .where(isUuid(idOrHandle) ? eq(people.id, idOrHandle) : eq(people.handle, idOrHandle))
      .limit(1);
    return row ?? null;
  }

  async setPasswordHash(personId: string, hash: string) {
    await this.db.update(people).set({ passwordHash: hash }).where(eq(people.id, personId));
  }

  async passwordHash(personId: string) {
    const [row] = await this.db.select({ h: people.passwordHash }).from(people).where(eq(people.id, personId));
    return row?.h ?? null;
  }
}
