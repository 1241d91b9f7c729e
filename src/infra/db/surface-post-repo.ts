import { and, eq, lt, sql } from 'drizzle-orm';
import type { PostAttempt, SurfacePostRepo } from '../../core/ports.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { Db } from './client.ts';
import { surfacePosts } from './schema.ts';

/**
 * One row per post key. Counting the attempt is a single upsert, so two
 * workers racing on one key both see the other's attempt (the second looks
 * for the first's post); the job's lease keeps that race rare.
 */
export class DrizzleSurfacePostRepo implements SurfacePostRepo {
  constructor(private readonly db: Db) {}

  async attempt(surface: ExternalSurface, key: string): Promise<PostAttempt> {
    const [row] = await this.db
      .insert(surfacePosts)
      .values({ surface, key })
      .onConflictDoUpdate({
        target: [surfacePosts.surface, surfacePosts.key],
        set: { attempts: sql`${surfacePosts.attempts} + 1` },
      })
      .returning({ attempts: surfacePosts.attempts, externalId: surfacePosts.externalId });
    return { externalId: row.externalId, unknown: !row.externalId && row.attempts > 1 };
  }

  async record(surface: ExternalSurface, key: string, externalId: string): Promise<void> {
    await this.db
      .update(surfacePosts)
      .set({ externalId })
      .where(and(eq(surfacePosts.surface, surface), eq(surfacePosts.key, key)));
  }

  async purgeBefore(cutoff: Date): Promise<number> {
    const gone = await this.db
      .delete(surfacePosts)
      .where(lt(surfacePosts.createdAt, cutoff))
      .returning({ key: surfacePosts.key });
    return gone.length;
  }
}
