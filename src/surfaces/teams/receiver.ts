// Durable Teams intake at POST /api/messages. The body is checked (JSON, an
// activity's shape), the Bot Framework token is authenticated by the SDK, and
// then: a card click (an invoke, which Teams wants answered in the response) is
// handled inline, once per activity id; anything else is stored with its
// `inbound.teams` outbox entry before the 200, and the job replays it as a turn
// that can reply, so a crash after the 200 loses nothing.
import { createHash } from 'node:crypto';
import { CloudAdapter, type Activity, type InvokeResponse, type TurnContext } from 'botbuilder';
// The SDK's own fix-up (timestamps to Dates) that CloudAdapter.process applies; not re-exported from the package root.
import { validateAndFixActivity } from 'botbuilder/lib/activityValidator.js';
import { AuthenticationError, type AuthenticateRequestResult } from 'botframework-connector';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { isSwitchboardError, PermanentFailure } from '../../core/errors.ts';
import type { JobHandler } from '../../core/ports.ts';
import type { Logger } from 'pino';
import type { SurfaceCore } from '../contract.ts';
import { asJobError, loggable } from './errors.ts';
import { TEAMS, TEAMS_INBOUND } from './topics.ts';

type Logic = (context: TurnContext) => Promise<void>;

/** CloudAdapter with the three steps of its `process` apart, so that storing can sit between authenticating and the turn. */
export class DurableCloudAdapter extends CloudAdapter {
  constructor(
    auth: ConstructorParameters<typeof CloudAdapter>[0],
    private readonly appId: string,
  ) {
    super(auth);
  }

  /** The SDK's check of the Authorization header against the activity; throws AuthenticationError when it fails. */
  authenticate(activity: Activity, authHeader: string): Promise<AuthenticateRequestResult> {
    return this.botFrameworkAuthentication.authenticateRequest(activity, authHeader);
  }

  /** Runs a turn for an authenticated activity now; its invoke response, if any. */
  runNow(auth: AuthenticateRequestResult, activity: Activity, logic: Logic): Promise<InvokeResponse | undefined> {
    return this.processActivity(auth, activity, logic);
  }

  /**
   * Runs a turn for a stored activity, as the bot (the way a proactive post
   * does), so replies reach the conversation. An error in `logic` is thrown here
   * instead of ending in onTurnError, so the job can retry.
   */
  async replay(activity: Partial<Activity>, logic: Logic): Promise<void> {
    let failure: { error: unknown } | null = null;
    await this.processProactive(this.createClaimsIdentity(this.appId), activity, undefined, async (context) => {
      try {
        await logic(context);
      } catch (error) {
        failure = { error };
      }
    });
    if (failure) throw (failure as { error: unknown }).error;
  }
}

/** The invoke of a link to the app's domain pasted in the compose box (link unfurling): read-only, answered every time. */
export const QUERY_LINK = 'composeExtension/queryLink';

/** The Bot Framework channel id of Microsoft Teams. */
const TEAMS_CHANNEL = 'msteams';

const id = z.string().min(1).max(1024);
/** What Switchboard needs of an activity before it can store or run it; the SDK reads the rest. */
const activityShape = z
  .object({
    type: z.string().min(1).max(64),
    id: id.optional(),
    channelId: id,
    serviceUrl: z.string().url().max(2048),
    conversation: z.object({ id }).passthrough(),
    from: z.object({ id }).passthrough(),
    recipient: z.object({ id }).passthrough(),
  })
  .passthrough();

const refuse = (res: Response, status: number, message: string) => {
  res.status(status).json({ error: { code: status === 401 ? 'UNAUTHENTICATED' : 'INVALID_INPUT', message } });
};

/** express.json, with its errors answered as 400/413 with a reason (the app's error handler would say 500). */
function jsonBody(): RequestHandler {
  const parse = express.json({ limit: '1mb' });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const status = (err as { status?: number }).status === 413 ? 413 : 400;
      refuse(res, status, status === 413 ? 'The activity is larger than 1 MB.' : 'The body is not valid JSON.');
    });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The key that makes Teams' resend of an activity the same row: its conversation
 * and activity id. An edit or a delete carries the id of the message it changes,
 * so its type, time and text (a reaction: what it gives or takes back) are part
 * of its key: each change is its own event.
 */
export function teamsKey(activity: z.infer<typeof activityShape>): string {
  if (!activity.id) return `body:${sha256(JSON.stringify(activity))}`;
  const key = `${activity.conversation.id}#${activity.id}`;
  if (activity.type === 'message') return key;
  // A reaction names the message it is on too: what it gives or takes back is part of it.
  const reactions =
    activity.reactionsAdded || activity.reactionsRemoved
      ? `\n${JSON.stringify([activity.reactionsAdded ?? [], activity.reactionsRemoved ?? []])}`
      : '';
  return `${key}#${activity.type}:${sha256(`${String(activity.timestamp ?? '')}\n${String(activity.text ?? '')}${reactions}`).slice(0, 32)}`;
}

/** The route: gate, parse, validate, authenticate, then store (or run an invoke inline). */
/** What the receiver uses of the Teams runtime (runtime.ts builds the adapter from this file, so it is not imported back). */
interface ReceiverRuntime {
  core: SurfaceCore;
  logger: Logger;
  adapter: DurableCloudAdapter | null;
}

export function teamsReceiver(
  rt: ReceiverRuntime,
  adapter: DurableCloudAdapter,
  logic: Logic,
  draining: () => boolean,
): RequestHandler[] {
  const gate: RequestHandler = (_req, res, next) => {
    if (!draining()) return next();
    res
      .status(503)
      .set('retry-after', '5')
      .json({ error: { code: 'UNAVAILABLE', message: 'Switchboard is restarting; send the activity again shortly.' } });
  };
  const handle = async (req: Request, res: Response, _next: NextFunction) => {
    const parsed = activityShape.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(
        res,
        400,
        `The activity is malformed: ${issue.path.join('.') || 'the body'} ${issue.message.toLowerCase()}.`,
      );
    }
    // Ingest first: while Teams waits for this answer, this process starts no new jobs (for a bounded time).
    const release = rt.core.holdForIngest();
    try {
      await receive(parsed.data, req, res);
    } finally {
      release();
    }
  };
  const receive = async (raw: z.infer<typeof activityShape>, req: Request, res: Response) => {
    const header = typeof req.headers.authorization === 'string' ? req.headers.authorization : '';
    let auth: AuthenticateRequestResult;
    try {
      auth = await adapter.authenticate(structuredClone(raw) as unknown as Activity, header);
    } catch (err) {
      if (err instanceof AuthenticationError) return refuse(res, 401, 'The Bot Framework token was refused.');
      rt.logger.warn({ err: loggable(err) }, 'could not authenticate a Teams request; answered 503');
      return void res
        .status(503)
        .set('retry-after', '5')
        .json({
          error: {
            code: 'UNAVAILABLE',
            message: 'The token could not be checked right now; send the activity again shortly.',
          },
        });
    }
    // The bot's registration may have other channels (Web Chat, Direct Line), whose clients choose the tenant and user an
    // activity names; a token endorsed for such a channel passes the SDK's check for an activity claiming it. Only Teams
    // vouches for who wrote, so nothing else is taken.
    if (raw.channelId !== TEAMS_CHANNEL) {
      rt.logger.warn(
        { channelId: raw.channelId.slice(0, 64) },
        'refused an activity from a channel other than Microsoft Teams',
      );
      return refuse(
        res,
        400,
        `Switchboard takes activities from Microsoft Teams only; this one came from the "${raw.channelId.slice(0, 64)}" channel. Turn that channel off in the bot's registration.`,
      );
    }
    const key = teamsKey(raw);
    try {
      if (raw.type === 'invoke') return await invokeOnce(rt, adapter, auth, raw, key, logic, res);
      const stored = await rt.core.inboundEvents.accept(
        { surface: TEAMS.surface, key, kind: raw.type, payload: raw },
        { topic: TEAMS_INBOUND, orderingKey: `inbound:${TEAMS.surface}:${raw.conversation.id}` },
      );
      if (stored) rt.core.kick();
      else rt.logger.debug({ type: raw.type }, 'acknowledged a Teams activity already received');
      res.status(200).end();
    } catch (err) {
      // Refused for what it holds (text the store cannot keep in its key): the same activity sent again is refused again.
      if (isSwitchboardError(err) && err.code === 'INVALID_INPUT') {
        rt.logger.warn({ err: loggable(err), type: raw.type }, 'refused a Teams activity that cannot be stored');
        if (!res.headersSent) refuse(res, 400, err.message);
        return;
      }
      rt.logger.error({ err: loggable(err), type: raw.type }, 'could not store or run a Teams activity; answered 503');
      if (!res.headersSent)
        res
          .status(503)
          .set('retry-after', '5')
          .json({
            error: { code: 'UNAVAILABLE', message: 'The activity could not be stored; send it again shortly.' },
          });
    }
  };
  return [gate, jsonBody(), handle];
}

/**
 * A card click needs its answer (the updated card) in this response, so it
 * runs now; its key is recorded first, and a resend gets a short notice instead
 * of deciding twice.
 */
async function invokeOnce(
  rt: ReceiverRuntime,
  adapter: DurableCloudAdapter,
  auth: AuthenticateRequestResult,
  raw: Record<string, unknown>,
  key: string,
  logic: Logic,
  res: Response,
) {
  // A link preview changes nothing: a resend is answered again, like the first.
  if (
    raw.name !== QUERY_LINK &&
    !(await rt.core.inboundEvents.remember({ surface: TEAMS.surface, key, kind: 'invoke' }))
  ) {
    rt.logger.debug('a Teams card action was sent again; answered without running it twice');
    res.status(200).json({
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'Switchboard already received this action.',
    });
    return;
  }
  const { validateAndFixActivity } = await import('botbuilder/lib/activityValidator.js');
  const result = await adapter.runNow(auth, validateAndFixActivity(raw as unknown as Activity), logic);
  res.status(result?.status ?? 200);
  if (result?.body !== undefined) res.json(result.body);
  else res.end();
}

/** The `inbound.teams` job: runs the stored activity through the bot; a thrown error retries it. */
export function teamsInboundHandler(rt: ReceiverRuntime, logic: () => Logic): JobHandler {
  return async (payload, job) => {
    const adapter = rt.adapter;
    if (!(adapter instanceof DurableCloudAdapter))
      throw new PermanentFailure(
        'Teams is not configured here (MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD), so a stored activity cannot be handled.',
      );
    // Read with the claim when the queue could (the embedded one); otherwise here.
    const event = job.inbound ?? (await rt.core.inboundEvents.get(String(payload.inboundId ?? '')));
    if (!event) throw new PermanentFailure('The stored Teams activity is gone (purged or never written).');
    const parsed = activityShape.safeParse(event.payload);
    if (!parsed.success) throw new PermanentFailure('The stored Teams activity is malformed and cannot be replayed.');
    try {
      await adapter.replay(validateAndFixActivity(structuredClone(parsed.data) as unknown as Activity), logic());
    } catch (e) {
      throw asJobError(e);
    }
  };
}
