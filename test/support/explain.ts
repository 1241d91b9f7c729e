import type { Database } from '../../src/infra/db/client.ts';
import { rowsOf } from '../../src/infra/db/org-repo.ts';

type PlanNode = {
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
};
type Prepare = (...a: unknown[]) => { execute(...a: unknown[]): Promise<unknown> };

/** Rows a plan node and those under it read: the rows each returned and filtered out, times its loops. */
const rowsRead = (n: PlanNode): number =>
  (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'] +
  (n.Plans ?? []).reduce((sum, c) => sum + rowsRead(c), 0);

/**
 * Runs `run` while the statements whose text includes `marker` are explained and analysed as they are sent
 * (named statements too), then run as usual; resolves to `run`'s result and the rows each of them read. The
 * explain runs a statement, so a matched one runs twice: only for statements that write nothing, or whose second
 * run changes nothing. A statement prepared once (preparedOnce) is seen only the first time its handle prepares it.
 */
export async function rowsReadBy<T>(
  database: Database,
  marker: string,
  run: () => Promise<T>,
): Promise<{ result: T; reads: number[] }> {
  const reads: number[] = [];
  const patched: Array<() => void> = [];
  const session = database.db._.session;
  const prepare = session.prepareQuery.bind(session) as unknown as Prepare;
  session.prepareQuery = ((query: { sql: string; params: unknown[] }, ...rest: unknown[]) => {
    const prepared = prepare(query, ...rest);
    if (!query.sql.includes(marker)) return prepared;
    const execute = prepared.execute.bind(prepared);
    const own = Object.getOwnPropertyDescriptor(prepared, 'execute');
    patched.push(() => {
      if (own) Object.defineProperty(prepared, 'execute', own);
      else delete (prepared as { execute?: unknown }).execute;
    });
    prepared.execute = async (...args: unknown[]) => {
      const explained = await prepare(
        { sql: `explain (analyze, format json) ${query.sql}`, params: query.params },
        undefined,
        undefined,
        false,
      ).execute();
      const json = Object.values(rowsOf<Record<string, unknown>>(explained)[0])[0];
      reads.push(rowsRead((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan));
      return (execute as (...a: unknown[]) => Promise<unknown>)(...args);
    };
    return prepared;
  }) as typeof session.prepareQuery;
  try {
    return { result: await run(), reads };
  } finally {
    session.prepareQuery = prepare as unknown as typeof session.prepareQuery;
    // A query kept for later calls (preparedOnce) must not go on explaining itself.
    for (const undo of patched) undo();
  }
}
