// Mail is stored before it is acknowledged: a process that stops right after
// the 250 (its queue never ran) loses nothing, and the next process on the
// same database hands the mail to the agent.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { inbox } from '../../support/server.ts';

let db: Database;
let later: EmailHarness | undefined;

beforeAll(async () => {
  db = await pgliteDb.open();
}, 60_000);
afterAll(async () => {
  await later?.stop();
  await db?.close();
});

describe('a mail acknowledged before the process stops', () => {
  it('is handled by the next process', async () => {
    const first = await startEmailHarness({ database: db, queueStopped: true });
    const info = await first.send({
      from: 'carol@example.com',
      to: `reviewer@${DOMAIN}`,
      subject: 'Before the crash',
      text: 'acknowledged, then the process stopped',
    });
    expect(info.response).toMatch(/^250 /);
    const pending = await first.server.app.jobs.list({ status: 'pending', topic: 'inbound.email' });
    expect(pending).toHaveLength(1);
    await first.stop();

    later = await startEmailHarness({ database: db, seed: false });
    await vi.waitFor(async () => {
      const items = await inbox({ server: later!.server, workspace: later!.workspace, reviewer: later!.reviewer });
      if (!items.some((i) => i.message.body.includes('acknowledged, then the process stopped')))
        throw new Error('not delivered yet');
    });
  });
});
