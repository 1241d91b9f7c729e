import type { Database } from '../../src/adapters/db/client.ts';
import { rowsOf } from '../../src/adapters/db/org-repo.ts';

type PlanNode = { 'Actual Rows': number; 'Actual Loops': number; 'Rows Removed by Filter'?: number; Plans?: PlanNode[] };
type Prepare = (...a: unknown[]) => { execute(): Promise<unknown> };

/** Rows a plan node and those under it read: the rows each returned and filtered out, times its loops. */
const rowsRead = (n: PlanNode): number =>
  (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'] + (n.Plans ?? []).reduce((sum, c) => sum + rowsRead(c), 0);

/**
 * Runs `run` while the statements whose text includes `marker` are explained and analysed as they are sent
 * (named statements too), then run as usual; resolves to `run`'s result and the rows each of them read.
 */
export async function rowsReadBy<T>(database: Database, marker: string, run: () => Promise<T>): Promise<{ result: T; reads: number[] }> {
  const reads: number[] = [];
  const session = database.db._.session;
  const prepare = session.prepareQuery.bind(session) as unknown as Prepare;
  session.prepareQuery = ((query: { sql: string; params: unknown[] }, ...rest: unknown[]) => {
    if (!query.sql.includes(marker)) return prepare(query, ...rest);
    return { execute: async () => {
      const explained = await prepare({ sql: `explain (analyze, format json) ${query.sql}`, params: query.params }, undefined, undefined, false).execute();
      const json = Object.values(rowsOf<Record<string, unknown>>(explained)[0])[0];
      reads.push(rowsRead((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan));
      return prepare(query, ...rest).execute();
    } };
  }) as typeof session.prepareQuery;
  try {
    return { result: await run(), reads };
  } finally {
    session.prepareQuery = prepare as unknown as typeof session.prepareQuery;
  }
}
