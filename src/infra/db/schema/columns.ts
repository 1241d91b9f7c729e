// Column types the tables share.
import { customType, timestamp, uuid } from 'drizzle-orm/pg-core';

export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const id = () => uuid('id').primaryKey().defaultRandom();

/** Millisecond timestamps: `updated_at` is handed to agents and compared back exactly, so it must survive a JS Date. */
export const tsMs = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });
