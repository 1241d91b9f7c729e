import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, whileUnreachable, type Database } from '../../../src/infra/db/client.ts';
import { freshPostgresDatabase } from '../../support/db.ts';
import { serviceUrl } from '../../support/services.ts';

const url = serviceUrl('postgres');

/** A TCP proxy to PostgreSQL that cuts the first `refuse` connections at once, as a server in failover does. */
function flakyProxy(target: URL, refuse: number) {
  let seen = 0;
  const server = net.createServer((client) => {
    seen++;
    if (seen <= refuse) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
  });
  return { server, seen: () => seen };
}

describe.runIf(url)('start-up while PostgreSQL cannot be reached', () => {
  let fresh: { url: string; drop(): Promise<void> };
  let proxy: ReturnType<typeof flakyProxy>;
  let database: Database | undefined;

  beforeAll(async () => {
    fresh = await freshPostgresDatabase(url!);
    proxy = flakyProxy(new URL(fresh.url), 3);
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await database?.close();
    await new Promise((r) => proxy.server.close(r));
    await fresh.drop();
  });

  it('migrates once the database answers instead of exiting on the first lost connection', async () => {
    const u = new URL(fresh.url);
    u.host = `127.0.0.1:${(proxy.server.address() as net.AddressInfo).port}`;
    database = await openDatabase({ databaseUrl: u.toString(), max: 2 });
    await database.migrate();
    expect(proxy.seen()).toBeGreaterThan(3);
    const rows = await database.db.execute(sql`select count(*)::int as n from workspaces`);
    expect((rows as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBe(0);
  });

  it('gives up at once on an error that is not about reaching the database', async () => {
    let calls = 0;
    await expect(
      whileUnreachable(async () => {
        calls++;
        throw new Error('syntax error at or near "selec"');
      }),
    ).rejects.toThrow(/syntax error/);
    expect(calls).toBe(1);
  });

  it('gives up when the database stays unreachable past its patience', async () => {
    let calls = 0;
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    await expect(
      whileUnreachable(
        async () => {
          calls++;
          throw refused;
        },
        undefined,
        1_000,
      ),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(calls).toBeGreaterThanOrEqual(2);
  });
});
