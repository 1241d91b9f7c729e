import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { invalidInput } from '../../domain/errors.ts';
import { systemClock, type Clock, type InboundEvent, type InboundEventRepo, type NewInboundEvent } from '../../domain/ports.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { DrizzleOutboxRepo } from './outbox-repo.ts';
import { inboundEvents, outbox } from './schema.ts';

const columns = {
  id: inboundEvents.id, surface: inboundEvents.surface, key: inboundEvents.key, kind: inboundEvents.kind,
  payload: inboundEvents.payload, outboxId: inboundEvents.outboxId, receivedAt: inboundEvents.receivedAt,
};

const NUL = /\u0000/;
const text = (max: number) => z.string().min(1).max(max).refine((s) => !NUL.test(s), 'contains a NUL character');
const eventShape = z.object({
  surface: z.enum(['slack', 'teams']),
  key: text(512),
  kind: text(64),
  payload: z.record(z.string(), z.unknown()),
});

function validated<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalidInput(`The inbound event cannot be stored: ${issue.path.join('.') || 'it'} ${issue.message}.`);
}

/**
 * Postgres jsonb cannot hold a NUL character; a request carrying one (typed by a
 * person, or hostile) is still stored, with U+FFFD in its place, so it is not lost.
 */
function withoutNul(value: Record<string, unknown>): Record<string, unknown> {
  const clean = (v: unknown): unknown => {
    if (typeof v === 'string') return NUL.test(v) ? v.replace(/\u0000/g, '\uFFFD') : v;
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [clean(k) as string, clean(x)]));
    return v;
  };
  return clean(value) as Record<string, unknown>;
}

/**
 * Received Slack and Teams requests. The row and the outbox entry that handles
 * it are written in one transaction, so an acknowledged request always has its
 * job, and the unique (surface, key) turns a redelivery into a no-op.
 */
export class DrizzleInboundEventRepo implements InboundEventRepo {
  constructor(private readonly db: Db, private readonly clock: Clock = systemClock) {}

  async accept(e: NewInboundEvent, job: { topic: string; orderingKey: string | null }): Promise<InboundEvent | null> {
    const event = validated(eventShape, e);
    return this.db.transaction(async (tx) => {
      const [row] = await tx.insert(inboundEvents).values({ ...event, payload: withoutNul(event.payload) }).onConflictDoNothing().returning(columns);
      if (!row) return null;
      const entry = await new DrizzleOutboxRepo(tx as unknown as Db, this.clock).add({ topic: job.topic, orderingKey: job.orderingKey, payload: { inboundId: row.id } });
      await tx.update(inboundEvents).set({ outboxId: entry.id }).where(eq(inboundEvents.id, row.id));
      return { ...row, outboxId: entry.id };
    });
  }

  async remember(e: Omit<NewInboundEvent, 'payload'>): Promise<boolean> {
    const event = validated(eventShape.omit({ payload: true }), e);
    const rows = await this.db.insert(inboundEvents).values({ ...event, payload: {} }).onConflictDoNothing().returning({ id: inboundEvents.id });
    return rows.length === 1;
  }

  async get(id: string): Promise<InboundEvent | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.db.select(columns).from(inboundEvents).where(eq(inboundEvents.id, id)).limit(1);
    return row ?? null;
  }

  async purgeBefore(cutoff: Date): Promise<number> {
    const finished = this.db.select({ id: outbox.id }).from(outbox).where(and(
      eq(outbox.id, inboundEvents.outboxId), inArray(outbox.status, ['done']),
    ));
    const rows = await this.db.delete(inboundEvents)
      .where(and(lt(inboundEvents.receivedAt, cutoff), or(isNull(inboundEvents.outboxId), sql`exists (${finished})`)))
      .returning({ id: inboundEvents.id });
    return rows.length;
  }
}
