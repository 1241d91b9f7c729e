// Durable Slack intake. Bolt's ExpressReceiver checks the signature and parses
// the body; instead of running the listeners while Slack waits, the request is
// stored (an inbound_events row and its `inbound.slack` outbox entry, in one
// transaction) and only then answered 200. Socket Mode (socket-mode.ts) stores
// through the same acceptSlackRequest before it acknowledges an envelope. The
// job replays the stored body through Bolt, so a crash after the 200 loses
// nothing and a redelivery (Slack's retry, a replayed signed request, an
// envelope sent again) is stored once and handled once.
import { createHash } from 'node:crypto';
import { ErrorCode, ExpressReceiver, type App as BoltApp, type ExpressReceiverOptions } from '@slack/bolt';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { slackRequestRefusal } from './request-shape.ts';
import { isSwitchboardError, PermanentFailure } from '../../core/errors.ts';
import type { JobContext, JobHandler } from '../../core/ports.ts';
import { asJobError, loggable } from './errors.ts';
import { NotInstalledError } from './installations.ts';
import type { SlackRuntime } from './runtime.ts';
import { SLACK_INBOUND } from './topics.ts';

/** Slack refuses requests signed more than five minutes ago; one signed that far ahead is refused as well. */
const MAX_SKEW_S = 5 * 60;

/**
 * How a request is told apart from a redelivery of itself, and what kind of request it is. An event is known by its
 * event_id; a command or an interaction by its body and, over HTTP, its signature timestamp (`timestamp`); over
 * Socket Mode (no timestamp) by its body alone, which carries a trigger_id of its own.
 */
export function slackKey(body: Record<string, unknown>, timestamp?: string): { key: string; kind: string } {
  if (body.type === 'event_callback' && typeof body.event_id === 'string')
    return { key: `event:${body.event_id}`, kind: 'event' };
  const kind =
    typeof body.command === 'string' ? 'command' : typeof body.type === 'string' ? String(body.type) : 'request';
  const digest = createHash('sha256')
    .update(timestamp === undefined ? JSON.stringify(body) : `${timestamp}:${JSON.stringify(body)}`)
    .digest('hex');
  return { key: timestamp === undefined ? `socket:${digest}` : `signed:${digest}`, kind };
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/**
 * Requests from one channel are handled in the order Slack sent them (a reply
 * after the mention that started its thread); other channels do not wait.
 */
export function slackOrderingKey(body: Record<string, unknown>): string | null {
  const event = (body.event ?? {}) as Record<string, unknown>;
  const channel = (body.channel ?? {}) as Record<string, unknown>;
  const container = (body.container ?? {}) as Record<string, unknown>;
  const team = str(body.team_id) ?? str((body.team as Record<string, unknown> | undefined)?.id) ?? '';
  const where =
    str(event.channel) ??
    str(body.channel_id) ??
    str(channel.id) ??
    str(container.channel_id) ??
    str(event.user) ??
    str((body.user as Record<string, unknown> | undefined)?.id);
  return where ? `inbound:slack:${team}:${where}` : null;
}

/** What a stored Slack request holds: the parsed body without its verification token, and Slack's retry headers. */
const storedRequest = z.object({
  body: z.record(z.string(), z.unknown()),
  retryNum: z.number().int().nonnegative().optional(),
  retryReason: z.string().optional(),
});

/**
 * Runs before the receiver: refuses new work while the server drains (503, so
 * Slack retries elsewhere or later) and requests dated in the future (Bolt only
 * refuses stale ones).
 */
export function slackGate(rt: SlackRuntime, draining: () => boolean): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (draining()) {
      res
        .status(503)
        .set('retry-after', '5')
        .type('text')
        .send('Switchboard is restarting; Slack will retry this request.');
      return;
    }
    const ts = Number(req.headers['x-slack-request-timestamp']);
    if (Number.isFinite(ts) && ts > Math.floor(Date.now() / 1000) + MAX_SKEW_S) {
      rt.logger.warn({ skewS: ts - Math.floor(Date.now() / 1000) }, 'refused a Slack request signed in the future');
      res.status(401).type('text').send('The request timestamp is more than five minutes in the future.');
      return;
    }
    next();
  };
}

/**
 * ExpressReceiver with its signature check, ssl_check and url_verification as
 * they are, and a request handler that stores the request before the 200.
 */
export class DurableReceiver extends ExpressReceiver {
  constructor(
    options: ExpressReceiverOptions,
    private readonly rt: SlackRuntime,
  ) {
    super(options);
  }

  override async requestHandler(req: Request, res: Response): Promise<void> {
    // Ingest first: while Slack waits for this answer, this process starts no new jobs (for a bounded time).
    const release = this.rt.core.holdForIngest();
    try {
      await this.store(req, res);
    } finally {
      release();
    }
  }

  private async store(req: Request, res: Response): Promise<void> {
    const retryNum = Number(req.headers['x-slack-retry-num']);
    const retryReason = req.headers['x-slack-retry-reason'];
    try {
      const outcome = await acceptSlackRequest(this.rt, req.body, {
        timestamp: String(req.headers['x-slack-request-timestamp'] ?? ''),
        ...(Number.isInteger(retryNum) ? { retryNum } : {}),
        ...(typeof retryReason === 'string' ? { retryReason } : {}),
      });
      // Refused for what it holds: Slack does not retry a 400, and a retry would be refused again.
      if (outcome.refused) res.status(400).type('text').send(outcome.refused);
      else res.status(200).send('');
    } catch {
      // Not stored, so not acknowledged: Slack retries events; a person sees their command or click fail and can repeat it.
      if (!res.headersSent) res.status(503).set('retry-after', '5').send('');
    }
  }
}

/**
 * Stores a Slack request, whichever way it came (signed HTTP or Socket Mode), with its `inbound.slack` job: one row
 * per request, a redelivery recognised (slackKey) and stored once. Refuses one that can never be handled (its shape,
 * or text the store cannot keep) without storing it, and says why in `refused`. Throws when it could not be stored
 * now: the caller then leaves it unacknowledged, so Slack sends it again.
 */
export async function acceptSlackRequest(
  rt: SlackRuntime,
  rawBody: unknown,
  via: { timestamp?: string; retryNum?: number; retryReason?: string },
): Promise<{ refused: string | null }> {
  // Never handleable: refused now rather than stored and retried for minutes.
  const refused = slackRequestRefusal(rawBody);
  if (refused) {
    rt.logger.warn({ refusal: refused }, 'refused a Slack request that cannot be handled');
    return { refused };
  }
  const { token: _verificationToken, ...body } = rawBody as Record<string, unknown>;
  const { key, kind } = slackKey(body, via.timestamp);
  const payload = {
    body,
    ...(via.retryNum !== undefined ? { retryNum: via.retryNum } : {}),
    ...(via.retryReason !== undefined ? { retryReason: via.retryReason } : {}),
  };
  try {
    const stored = await rt.core.inboundEvents.accept(
      { surface: 'slack', key, kind, payload },
      { topic: SLACK_INBOUND, orderingKey: slackOrderingKey(body) },
    );
    if (stored) rt.core.kick();
    else rt.logger.debug({ kind, retryNum: via.retryNum }, 'acknowledged a Slack request already received');
    return { refused: null };
  } catch (err) {
    // Text the store cannot keep in its key: refused, as it would be again.
    if (isSwitchboardError(err) && err.code === 'INVALID_INPUT') {
      rt.logger.warn({ err: loggable(err), kind }, 'refused a Slack request that cannot be stored');
      return { refused: err.message };
    }
    rt.logger.error({ err: loggable(err), kind }, 'could not store a Slack request; it is not acknowledged');
    throw err;
  }
}

type AckResponse = string | Record<string, unknown> | undefined;

/** Answers a stored command's `ack(text)` through its response_url, as Slack no longer waits for the HTTP answer. */
async function answerLater(rt: SlackRuntime, body: Record<string, unknown>, response: AckResponse): Promise<void> {
  if (response === undefined || response === '') return;
  const message = typeof response === 'string' ? { text: response } : response;
  if ('response_action' in message || 'options' in message || 'option_groups' in message) {
    rt.logger.warn(
      { type: body.type },
      'a stored Slack interaction answered with a response only the HTTP answer can carry; it was dropped',
    );
    return;
  }
  const url = typeof body.response_url === 'string' ? body.response_url : null;
  if (!url) return;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(rt.settings.timeoutMs),
  });
  if (!res.ok) throw new Error(`Slack refused the answer to a command (HTTP ${res.status})`);
}

/**
 * The `inbound.slack` job: replays the stored body through Bolt's listeners.
 * A listener that throws makes the job throw (see `rethrowListenerErrors`), so
 * the queue retries it with backoff and finally marks it failed.
 */
export function slackInboundHandler(rt: SlackRuntime, bolt: () => BoltApp | null): JobHandler {
  return async (payload, job) => {
    const app = bolt();
    if (!app)
      throw new PermanentFailure(
        'Slack is not configured here (SLACK_SIGNING_SECRET or SLACK_APP_TOKEN), so a stored Slack request cannot be handled.',
      );
    // Read with the claim when the queue could (the embedded one); otherwise here.
    const event = job.inbound ?? (await rt.core.inboundEvents.get(String(payload.inboundId ?? '')));
    if (!event) throw new PermanentFailure('The stored Slack request is gone (purged or never written).');
    const parsed = storedRequest.safeParse(event.payload);
    if (!parsed.success) throw new PermanentFailure('The stored Slack request is malformed and cannot be replayed.');
    const { body, retryNum, retryReason } = parsed.data;
    // Stored before its shape was checked at the gate: given up at once, not retried.
    const refusal = slackRequestRefusal(body);
    if (refusal) throw new PermanentFailure(`The stored Slack request cannot be handled: ${refusal}`);
    let acked = false;
    await app.processEvent({
      body,
      retryNum,
      retryReason,
      customProperties: { [JOB]: job },
      ack: async (response?: AckResponse) => {
        acked = true;
        await answerLater(rt, body, response);
      },
    });
    // Every listener acknowledges what it handles, so a request nobody acknowledged matched no listener:
    // a stale button, or another app's. It was answered 200 already; nothing more to do.
    if (!acked)
      rt.logger.debug(
        { kind: event.kind },
        'no listener handles this Slack request (a stale or foreign button?); ignored',
      );
  };
}

/** Where a replayed request's listeners find the job running it (Bolt passes customProperties on in `context`). */
const JOB = 'switchboardJob';

/** The job a listener runs in: whether a failure now is the last (see JobContext.failsForGood). */
export const jobOf = (context: Record<string, unknown>): JobContext | undefined =>
  context[JOB] as JobContext | undefined;

/** Listener errors normally end in Bolt's error handler; thrown from there they fail the job, which retries. */
export function rethrowListenerErrors(bolt: BoltApp, rt: SlackRuntime): void {
  bolt.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    // A team that is not (or no longer) installed: retrying cannot help. Any other authorization failure (the
    // database away while reading the install) is retried like a listener's.
    if (error.code === ErrorCode.AuthorizationError && original instanceof NotInstalledError) {
      rt.logger.warn(
        { code: error.code },
        'a stored Slack request is for a team Switchboard is not installed in; ignored',
      );
      return;
    }
    const thrown = asJobError(original);
    // A permanent failure (a stored token the current secret cannot open…) is recorded failed at once, not retried.
    rt.logger.warn(
      { err: loggable(original), code: error.code },
      thrown instanceof PermanentFailure
        ? 'a Slack listener failed for good; the job is recorded as failed'
        : 'a Slack listener failed; the job will retry',
    );
    throw thrown;
  });
}
