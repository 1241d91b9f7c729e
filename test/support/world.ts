import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import type { Core } from '../../src/app-types.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import type { Agent, Workspace } from '../../src/core/entities.ts';
import { openToolContext } from '../../src/mcp/context.ts';
import { buildMcpServer } from '../../src/mcp/server.ts';
import { pgliteDb } from './db.ts';

/** A config for tests: a throwaway data directory, silent logs, any free port. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-mcp-')),
    SWITCHBOARD_SECRET: 'test-secret-'.padEnd(40, 'x'),
    LOG_LEVEL: 'silent',
    PORT: '0',
    ...env,
  });
}

export const silent = pino({ level: 'silent' });

/** An App over an already-open test database (the caller closes the database). */
/** One App on a fresh PGlite for the whole test file, closed after it; `use` receives it once it is ready. */
export function appPerFile(use: (app: App) => void, opts: AppOptions = {}): void {
  let db: Database | undefined;
  let app: App | undefined;
  beforeAll(async () => {
    db = await pgliteDb.open();
    app = await testApp(db, opts);
    use(app);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });
}

export function testApp(database: Database, opts: AppOptions = {}): Promise<App> {
  return createApp(testConfig(), { database, logger: silent, migrate: false, ...opts });
}

let n = 0;

export interface World {
  suffix: string;
  ws: Workspace;
  org: string;
  /** People: alice is an org admin, bob a member; each owns one agent. */
  alice: string;
  bob: string;
  builder: { agent: Agent; token: string; name: string };
  reviewer: { agent: Agent; token: string; name: string };
}

/**
 * A fresh organization (unique names, so tests sharing one database never
 * meet): admin alice with agent `builder`, member bob with agent `reviewer`,
 * both joined to one workspace with default permissions.
 */
export async function makeWorld(
  app: App,
  joins: { builder?: Record<string, unknown>; reviewer?: Record<string, unknown> } = {},
): Promise<World> {
  // Random too: workers keep modules between files (isolate: false), so pid and counter alone are not proof against reuse.
  const suffix = `${process.pid.toString(36)}${(n++).toString(36)}${randomBytes(2).toString('hex')}`;
  const alice = `alice-${suffix}`;
  const bob = `bob-${suffix}`;
  const { org } = await app.orgs.init({ org: `Acme ${suffix}`, admin: alice });
  await app.orgs.addPerson(SYSTEM, { handle: bob, org: org.slug });
  const ws = await app.orgs.addWorkspace(SYSTEM, { name: `Team ${suffix}`, org: org.slug });
  const builder = await app.agents.add(SYSTEM, {
    name: 'builder',
    owner: alice,
    displayName: 'Builder',
    roleLine: 'Builds things',
  });
  const reviewer = await app.agents.add(SYSTEM, {
    name: 'reviewer',
    owner: bob,
    displayName: 'Reviewer',
    roleLine: 'Reviews things',
  });
  await app.agents.join(SYSTEM, { agent: `${alice}/builder`, workspace: ws.slug });
  await app.agents.join(SYSTEM, { agent: `${bob}/reviewer`, workspace: ws.slug });
  // Permissions second: allow-lists name agents that must already be in the workspace.
  if (joins.builder) await app.agents.join(SYSTEM, { agent: `${alice}/builder`, workspace: ws.slug, ...joins.builder });
  if (joins.reviewer)
    await app.agents.join(SYSTEM, { agent: `${bob}/reviewer`, workspace: ws.slug, ...joins.reviewer });
  return {
    suffix,
    ws,
    org: org.slug,
    alice,
    bob,
    builder: { ...builder, name: `${alice}/builder` },
    reviewer: { ...reviewer, name: `${bob}/reviewer` },
  };
}

/** The SDK's own Client connected in-process to a session server built for `agent` over the core (an App is one). */
export async function connectInProcess(core: Core, agent: Agent, workspace: string) {
  const server = await buildMcpServer(await openToolContext(core, agent, workspace));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'switchboard-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    call: (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a tool result (its first text block). */
export const textOf = (r: CallToolResult) =>
  (r.content.find((c) => c.type === 'text') as { text: string } | undefined)?.text ?? '';
