import type { Logger } from 'pino';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Clock } from '../../../src/core/ports.ts';
import type { Server } from '../../../src/server.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import type { SigninLimits } from '../../../src/http/auth/rate-limit.ts';
import type { Mount } from '../../../src/http/http.ts';
import { mountSurfaces, mountWebChat } from '../../../src/http/surface-mount.ts';
import { pgliteDb, type TestDatabase } from '../db.ts';
import { startServerForTest } from '../server.ts';

/** A clock tests move forward by hand. */
export class TestClock implements Clock {
  private offset = 0;
  now() {
    return new Date(Date.now() + this.offset);
  }
  advance(ms: number) {
    this.offset += ms;
  }
}

export interface TestServer extends Server {
  clock: TestClock;
  /** Stops the server, closes the database and removes the data directory. */
  close(): Promise<void>;
}

/** A server on 127.0.0.1 with a fresh database, the web chat mount and (optionally) others before it (the web chat is among `mountSurfaces`). */
export async function startTestServer(
  o: {
    db?: TestDatabase;
    signinLimits?: SigninLimits;
    keepaliveMs?: number;
    mounts?: Mount[];
    env?: Record<string, string>;
    port?: number;
    logger?: Logger;
  } = {},
): Promise<TestServer> {
  const database: Database = await (o.db ?? pgliteDb).open();
  const clock = new TestClock();
  const server = await startServerForTest({
    name: 'web',
    database,
    clock,
    port: o.port,
    env: o.env,
    logger: o.logger,
    mounts: o.mounts?.includes(mountSurfaces) ? o.mounts : [...(o.mounts ?? []), mountWebChat],
    surfaces: { web: { signinLimits: o.signinLimits, keepaliveMs: o.keepaliveMs } },
    queue: { pollMs: 50 },
  }).catch(async (e: unknown) => {
    await database.close();
    throw e;
  });
  return Object.assign(server, {
    clock,
    async close() {
      await server.stop();
      await database.close();
    },
  });
}

/**
 * One stored hash per password in this process: each scrypt costs about 70 ms of CPU (more on a loaded machine),
 * and seeding is not what these tests check; signing in still verifies the password with scrypt.
 */
const hashes = new Map<string, Promise<string>>();
const hashOnce = (password: string) => {
  let hash = hashes.get(password);
  if (!hash) hashes.set(password, (hash = hashPassword(password)));
  return hash;
};

/** An organization with a workspace, an admin and a member, both with passwords. */
export async function seedOrg(
  server: Server,
  o: { org: string; workspace: string; admin: string; member?: string; password?: string },
) {
  const { app } = server;
  const password = o.password ?? 'correct horse battery';
  const { org, admin } = await app.orgs.init({
    org: o.org,
    admin: o.admin,
    displayName: `${o.admin[0].toUpperCase()}${o.admin.slice(1)}`,
  });
  const ws = await app.orgs.addWorkspace(SYSTEM, { name: o.workspace, org: org.slug, slug: o.workspace });
  await app.store.people.setPasswordHash(admin.id, await hashOnce(password));
  let member = null;
  if (o.member) {
    member = await app.orgs.addPerson(SYSTEM, {
      handle: o.member,
      org: org.slug,
      role: 'member',
      displayName: `${o.member[0].toUpperCase()}${o.member.slice(1)}`,
    });
    await app.store.people.setPasswordHash(member.id, await hashOnce(password));
  }
  return { org, ws, admin, member, password };
}
