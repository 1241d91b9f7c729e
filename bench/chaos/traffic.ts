// The load of one chaos run: people mentioning an agent in Slack (signed
// events sent as Slack sends them, retried as Slack retries what was not
// answered 200; or, over Socket Mode, envelopes on the app's connection, sent
// again by the stand-in as Slack does while unacknowledged), and the agent
// answering each one in its thread through the domain, the way the MCP
// `send_message` tool does.
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/infra/db/org-repo.ts';
import type { App } from '../../src/app.ts';
import type { Agent, Workspace } from '../../src/core/entities.ts';
import { SLACK_DEFAULTS } from '../../test/support/slack/defaults.ts';
import { appMention, eventCallback, signRequest } from '../../test/support/slack/signed-request.ts';
import type { SocketModeStandin } from '../../test/support/slack/socket-mode-standin.ts';

export const CHANNELS = 50;
export const USERS = ['U0CHAOS01', 'U0CHAOS02', 'U0CHAOS03', 'U0CHAOS04', 'U0CHAOS05'];
/** Slack gives up on a request after 3 s and sends it again. */
const SLACK_TIMEOUT_MS = 3_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const inboundTag = (run: string, i: number) => `chaos-in-${run}-${i}`;
export const replyTag = (run: string, i: number) => `chaos-out-${run}-${i}`;

/** Runs `work(i)` for i in [0, n) with `width` workers. */
async function pool(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

/** The i-th mention of a run, the same however it is sent. */
const mentionRequest = (run: string, i: number) =>
  eventCallback(
    appMention({
      user: USERS[i % USERS.length]!,
      channel: `C0CHAOS${String(i % CHANNELS).padStart(2, '0')}`,
      text: `<@${SLACK_DEFAULTS.botUserId}> @reviewer ${inboundTag(run, i)}`,
      ts: `1720000000.${String(i).padStart(6, '0')}`,
    }),
    { eventId: `Ev0CHAOS${run.toUpperCase()}${String(i).padStart(5, '0')}` },
  );

/**
 * Sends `n` app_mention events, each until it is answered 200 (the only answer
 * Slack takes as delivered); a redelivery carries the same event id and body
 * with x-slack-retry-num. Resolves with the time each one was acknowledged.
 */
export async function sendMentions(o: {
  url: () => string;
  run: string;
  n: number;
  onAck: () => void;
}): Promise<Map<number, number>> {
  const acked = new Map<number, number>();
  await pool(o.n, 8, async (i) => {
    const request = mentionRequest(o.run, i);
    for (let attempt = 0; ; attempt++) {
      // Signed afresh each time, as Slack does; an answer later than Slack's timeout counts as none.
      const { headers, body } = signRequest(
        request,
        attempt ? { retry: { num: attempt, reason: 'http_timeout' } } : {},
      );
      const status = await fetch(`${o.url()}/slack/events`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(SLACK_TIMEOUT_MS),
      })
        .then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        })
        .catch(() => 0);
      if (status === 200) break;
      await pause(Math.min(5_000, 500 * (attempt + 1)));
    }
    acked.set(i, Date.now());
    o.onAck();
  });
  return acked;
}

/**
 * Sends the same `n` app_mention events as Socket Mode envelopes, 8 unacknowledged at a time; the stand-in sends each
 * again (on the next connection) until it is acknowledged, or gives it up after its third retry as Slack does.
 * Resolves with the time each one was first acknowledged.
 */
export async function sendEnvelopes(o: {
  socket: SocketModeStandin;
  run: string;
  n: number;
  onAck: () => void;
}): Promise<Map<number, number>> {
  const acked = new Map<number, number>();
  const byEnvelope = new Map<string, number>();
  o.socket.onAck = (ack) => {
    const i = byEnvelope.get(ack.envelopeId);
    if (i === undefined || acked.has(i)) return;
    acked.set(i, ack.at.getTime());
    o.onAck();
  };
  await pool(o.n, 8, async (i) => {
    const id = o.socket.send(mentionRequest(o.run, i));
    byEnvelope.set(id, i);
    while (!acked.has(i) && !o.socket.abandoned.some((e) => e.envelope_id === id)) await pause(20);
  });
  return acked;
}

export interface Reply {
  messageId: string;
  ackedAt: number;
}

/**
 * The agent answers each mention it received, once it is in the database, in
 * the mention's thread; a send that fails (the database went away) is tried
 * again. Resolves when all `n` are answered.
 */
export async function sendReplies(o: {
  app: App;
  ws: Workspace;
  agent: Agent;
  run: string;
  n: number;
  onAck: () => void;
  /** True once every mention was acknowledged: a minute after that with nothing new to answer, the agent stops. */
  mentionsDone: () => boolean;
}): Promise<Map<number, Reply>> {
  const replies = new Map<number, Reply>();
  const pending = new Map<number, string>();
  const pattern = new RegExp(`chaos-in-${o.run}-(\\d+)`);
  let lastNew = Date.now();
  while (replies.size < o.n && !(o.mentionsDone() && pending.size === replies.size && Date.now() - lastNew > 60_000)) {
    const rows = await o.app.database.db
      .execute(sql`select body, conversation_id from messages where body like ${`%chaos-in-${o.run}-%`}`)
      .then(
        (r) => rowsOf<{ body: string; conversation_id: string }>(r),
        () => [],
      );
    for (const r of rows) {
      const i = Number(pattern.exec(r.body)?.[1]);
      if (Number.isInteger(i) && !pending.has(i)) {
        pending.set(i, r.conversation_id);
        lastNew = Date.now();
      }
    }
    const batch = [...pending].filter(([i]) => !replies.has(i));
    await pool(batch.length, 4, async (k) => {
      const [i, conversationId] = batch[k]!;
      try {
        const sent = await o.app.messaging.send({
          workspace: o.ws,
          sender: o.agent,
          conversationId,
          body: replyTag(o.run, i),
        });
        if (!sent.message) throw new Error(`not sent: ${JSON.stringify(sent.recipients)}`);
        replies.set(i, { messageId: sent.message.id, ackedAt: Date.now() });
        o.onAck();
      } catch {
        // The next pass tries again, as an agent whose call failed would.
      }
    });
    if (replies.size < o.n) await pause(300);
  }
  return replies;
}
