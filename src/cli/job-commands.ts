import { z } from 'zod';
import { conflict, notFound } from '../core/errors.ts';
import type { OutboxEntry } from '../core/ports.ts';
import { args, type Command } from './commands.ts';

const STATUSES = ['pending', 'queued', 'done', 'failed'] as const;

/** One job as `--json` shows it: never its payload, which may point at people's messages. */
const shown = (e: OutboxEntry) => ({
  id: e.id,
  topic: e.topic,
  status: e.status,
  attempts: e.attempts,
  run_at: e.runAt.toISOString(),
  last_error: e.lastError,
});

const line = (e: OutboxEntry) =>
  `${e.id}  ${e.topic}  ${e.status}  attempts ${e.attempts}  ${e.status === 'pending' ? `due ${e.runAt.toISOString()}` : ''}${e.lastError ? `  last error: ${e.lastError}` : ''}`.replace(
    / {3,}/g,
    '  ',
  );

/**
 * `jobs list` and `jobs retry`: the outbox as an operator sees it. Inbound
 * Slack/Teams requests (inbound.*) and outbound posts are jobs alike; one that
 * failed for good stays `failed` until retried here.
 */
export const jobCommands: Record<string, Command> = {
  async 'jobs list'(core, raw) {
    const a = args(
      z.object({
        status: z.enum(STATUSES, { message: `--status must be one of: ${STATUSES.join(', ')}` }).optional(),
        topic: z.string().min(1).optional(),
      }),
      raw,
    );
    // Without --status: everything not done yet, and what failed for good.
    const statuses = a.status ? [a.status] : (['failed', 'queued', 'pending'] as const);
    const entries = (await Promise.all(statuses.map((status) => core.jobs.list({ status, topic: a.topic })))).flat();
    const what = `${a.status ?? 'unfinished or failed'} job${entries.length === 1 ? '' : 's'}${a.topic ? ` of ${a.topic}` : ''}`;
    return {
      data: { jobs: entries.map(shown) },
      text: entries.length ? [`${entries.length} ${what}:`, ...entries.map(line)].join('\n') : `No ${what}.`,
    };
  },

  async 'jobs retry'(core, raw) {
    const a = args(z.object({ id: z.string().min(1) }), raw);
    const entry = await core.jobs.retry(a.id);
    if (!entry) {
      const found = await core.jobs.find(a.id);
      if (!found) throw notFound(`The job ${a.id}`, 'List them with `switchboard jobs list`.');
      throw conflict(`The job ${a.id} is ${found.status}, not failed; only a failed job can be retried.`);
    }
    return {
      data: { job: shown(entry) },
      text: `The job ${entry.id} (${entry.topic}) is pending again and runs shortly.`,
    };
  },
};
