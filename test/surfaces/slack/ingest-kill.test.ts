// `switchboard serve` on the embedded database, killed with SIGKILL in the
// middle of a flood of signed Slack events: every event it answered 200 is in
// the database after the next start (from its inbound journal), once, with the
// job that handles it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundEvents, outbox } from '../../../src/infra/db/schema.ts';
import { createApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { seedDataDir } from '../../support/db.ts';
import { freePort } from '../../support/free-port.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, signRequest } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';

const BIN = path.resolve(import.meta.dirname, '../../../bin/switchboard.mjs');
const SECRET = 'ingest-kill-switchboard-secret-0123456789';

describe('a server killed while acknowledging Slack events (embedded database)', () => {
  let dataDir: string;
  let standin: SlackStandin;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'sb-ingest-kill-'));
    await seedDataDir(dataDir);
    standin = await startSlackStandin();
  });
  afterAll(async () => {
    await standin?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has every event it acknowledged in the database at the next start, once', async () => {
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      SWITCHBOARD_SECRET: SECRET,
      SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret,
      SLACK_API_URL: standin.url,
      LOG_LEVEL: 'warn',
    };
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PORT: String(port) };
    delete childEnv.DATABASE_URL;
    delete childEnv.REDIS_URL;
    const child = spawn(process.execPath, [BIN, 'serve'], { env: childEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 100_000;
    while (
      !(await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      expect(Date.now(), 'the server did not get ready').toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 200));
    }

    // Eight senders, as Slack sends several at once, until the server is killed after 200 acknowledgements.
    const acked: string[] = [];
    let n = 0;
    let killed = false;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (!killed) {
          const id = `EvKILL${n++}`;
          const signed = signRequest(
            eventCallback(
              appMention({ user: 'U0KILL', channel: `C0KILL${n % 4}`, text: `<@${SLACK_DEFAULTS.botUserId}> ${id}` }),
              { eventId: id },
            ),
          );
          const res = await fetch(`${url}/slack/events`, {
            method: 'POST',
            headers: signed.headers,
            body: signed.body,
          }).catch(() => null);
          if (res?.status === 200) acked.push(id);
          if (acked.length >= 200 && !killed) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      }),
    );
    await exited;

    // The next start (this process) moves what the journal held into the database before anything else.
    const app = await createApp(loadConfig({ ...env, PORT: '0' }), { logger: pino({ level: 'silent' }) });
    try {
      const rows = await app.database.db
        .select({ key: inboundEvents.key, topic: outbox.topic })
        .from(inboundEvents)
        .leftJoin(outbox, eq(outbox.id, inboundEvents.outboxId));
      const byKey = new Map<string, number>();
      for (const r of rows) {
        expect(r.topic).toBe(SLACK_INBOUND);
        byKey.set(r.key, (byKey.get(r.key) ?? 0) + 1);
      }
      expect(acked.filter((id) => byKey.get(`event:${id}`) !== 1)).toEqual([]);
    } finally {
      await app.close();
    }
  }, 240_000);
});
