// Run by inbound-journal.test.ts as a child process, which kills it: appends
// Slack requests to the journal in the directory it is given, 8 at a time,
// printing each key once its accept has returned (once it is acknowledged).
import pino from 'pino';
import type { Db } from '../../../src/infra/db/client.ts';
import { InboundJournal } from '../../../src/infra/db/inbound-journal.ts';
import { DrizzleInboundEventRepo } from '../../../src/infra/db/inbound-repo.ts';

const never = 3_600_000;
// Preparing a row needs no database, and the journal is never moved here: nothing reaches it.
const journal = await InboundJournal.open(
  process.argv[2],
  new DrizzleInboundEventRepo({} as Db),
  pino({ level: 'silent' }),
  { quietMs: never, maxWaitMs: never, maxPending: Number.MAX_SAFE_INTEGER, retryMs: never },
);
let n = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    for (;;) {
      const key = `event:killed-${n++}`;
      await journal.accept(
        { surface: 'slack', key, kind: 'event', payload: { body: { text: key } } },
        { topic: 'inbound.slack', orderingKey: null },
      );
      process.stdout.write(`${key}\n`);
    }
  }),
);
