// The one way tests start a Switchboard server over HTTP: on 127.0.0.1, with a
// throwaway DATA_DIR that stop() removes, the test secret, silent logs, no
// control socket, and a queue that polls and retries quickly. Each surface's
// harness (test/support/<surface>/) adds its mounts, environment and seed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { vi } from 'vitest';
import type { AppOptions } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import type { InboxItem } from '../../src/core/messaging/message.ts';
import type { Agent, Workspace } from '../../src/core/entities.ts';
import type { Mount } from '../../src/http/http.ts';
import type { Database } from '../../src/infra/db/client.ts';
import { startServer, type Server } from '../../src/server.ts';

export const TEST_SECRET = 'test-switchboard-secret-0123456789abcdef';

/** The queue a test server runs unless told otherwise: polled every 25 ms, a failed job retried after 50 ms. */
export const QUICK_QUEUE: NonNullable<AppOptions['queue']> = { pollMs: 25, backoff: () => 50 };

export interface TestServerOptions extends Omit<AppOptions, 'database' | 'logger'> {
  /** An open database; the caller closes it (a restarted server reuses it). */
  database: Database;
  mounts: Mount[];
  /** Environment over the test defaults (PORT, DATA_DIR, SWITCHBOARD_SECRET, LOG_LEVEL). */
  env?: Record<string, string>;
  /** Listen on this port, with PUBLIC_URL on it; any free port by default. */
  port?: number;
  /** Deliver through BullMQ on this Redis, with a queue name and prefix of this server's own (or `queueName`). */
  redisUrl?: string;
  /** Reuse a queue name (a restarted server picks up the same BullMQ queue). */
  queueName?: string;
  logger?: Logger;
  /** Collect every log line (debug and up) here instead of discarding them. */
  logLines?: string[];
  /** Names the data directory (`sb-<name>-…`) and the BullMQ queue. */
  name?: string;
}

/** Silent (or TEST_LOG_LEVEL), or every line from debug up collected in `lines`. */
function testLogger(lines?: string[]): Logger {
  if (!lines) return pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  return pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
}

/** A server on 127.0.0.1 over `database` with `mounts`; its stop() also removes its data directory. */
export async function startServerForTest(o: TestServerOptions): Promise<Server> {
  const { database, mounts, env, port, redisUrl, queueName, logger, logLines, name = 'test', ...options } = o;
  const dataDir = mkdtempSync(path.join(tmpdir(), `sb-${name}-`));
  const unique = queueName ?? `${name}-${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    PORT: String(port ?? 0),
    DATA_DIR: dataDir,
    SWITCHBOARD_SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    ...(port ? { PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...env,
  });
  try {
    const server = await startServer(config, {
      ...options,
      database,
      logger: logger ?? testLogger(logLines),
      host: '127.0.0.1',
      control: false,
      mounts,
      queue: { ...(options.queue ?? QUICK_QUEUE), ...(redisUrl ? { queueName: unique, prefix: unique } : {}) },
    });
    return {
      ...server,
      async stop() {
        await server.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}

/** What the Slack and Teams harnesses seed: org acme (admin alice), workspace eng, and alice/reviewer joined to it. */
export async function seedReviewer(app: Server['app']): Promise<{ reviewerToken: string }> {
  await app.orgs.init({ org: 'Acme', admin: 'alice' });
  await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
  const { token } = await app.agents.add(SYSTEM, {
    name: 'reviewer',
    owner: 'alice',
    displayName: 'Reviewer',
    avatarUrl: 'https://example.test/reviewer.png',
    roleLine: 'reviews pull requests',
  });
  await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'eng' });
  return { reviewerToken: token };
}

/** A server with a workspace and an agent in it, as the surface harnesses return. */
export interface AgentHarness {
  server: Server;
  workspace: Workspace;
  /** alice/reviewer, joined to the workspace. */
  reviewer: Agent;
}

/** Reads the agent's inbox the way check_inbox does. */
export async function inbox(h: AgentHarness, agent: Agent = h.reviewer): Promise<InboxItem[]> {
  return (await h.server.app.messaging.checkInbox(agent, h.workspace, 50)).items;
}

/** Waits until the reviewer's inbox has received a message with this body, and returns it. */
export function received(h: AgentHarness, body: string): Promise<InboxItem> {
  const seen: InboxItem[] = [];
  return vi.waitFor(
    async () => {
      seen.push(...(await inbox(h)));
      const found = seen.find((i) => i.message.body === body);
      if (!found) throw new Error('not delivered yet');
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );
}

/**
 * Agents' inboxes read the way check_inbox does, keeping everything each agent took, so that a test can wait for a
 * message and then count how often it came. `harness` is read at every call (a test may restart its server).
 */
export function takenInboxes(harness: () => AgentHarness) {
  const taken = new Map<string, InboxItem[]>();
  return {
    /** Waits until `agent` took a message with this body; returns it. */
    got: (agent: Agent, body: string) =>
      vi.waitFor(
        async () => {
          const seen = taken.get(agent.id) ?? [];
          seen.push(...(await inbox(harness(), agent)));
          taken.set(agent.id, seen);
          const found = seen.find((i) => i.message.body === body);
          if (!found) throw new Error(`${agent.name} has not got "${body}" yet`);
          return found;
        },
        { timeout: 20_000, interval: 50 },
      ),
    /** How many times `agent` took a message with this body so far. */
    times: (agent: Agent, body: string) => (taken.get(agent.id) ?? []).filter((i) => i.message.body === body).length,
  };
}
