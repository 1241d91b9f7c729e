// Proactive calls to the Bot Connector (posting an agent's answer, a card,
// updating a card) from jobs, outside any incoming turn. The SDK authenticates
// them; its own retries are turned off so that each job attempt makes one call
// and the outbox, which survives restarts, owns retrying, pacing and backoff.
import type { Activity, ConversationReference } from 'botbuilder';
import type { ConnectorClient } from 'botframework-connector';
import { PermanentFailure, RetryLater } from '../../domain/errors.ts';
import { paceKey, type TeamsAddress } from './address.ts';
import { classifyTeamsError, type TeamsFailure } from './errors.ts';
import type { TeamsRuntime } from './runtime.ts';

/** A Bot Connector call that failed, classified. */
export class TeamsCallFailed extends Error {
  constructor(readonly failure: TeamsFailure) {
    super(failure.reason);
    this.name = 'TeamsCallFailed';
  }
}

/** The reference to continue a conversation with: the stored one when the bot has seen it (newest service URL), else built from the address. */
export async function referenceFor(rt: TeamsRuntime, a: TeamsAddress): Promise<Partial<ConversationReference>> {
  const stored = (await rt.references.get(a.conversation)) as Partial<ConversationReference> | null;
  return {
    channelId: 'msteams',
    bot: stored?.bot ?? { id: `28:${rt.settings.appId}`, name: 'Switchboard' },
    serviceUrl: stored?.serviceUrl ?? a.serviceUrl,
    conversation: { id: a.conversation, conversationType: a.type, tenantId: a.tenant, isGroup: a.type !== 'personal', name: '' },
  };
}

/** Removes the connector pipeline's retry policy (429 with Retry-After, 5xx with backoff, up to 3 times). */
function withoutSdkRetries(client: ConnectorClient): void {
  const pipeline = (client as unknown as { client?: { pipeline?: { removePolicy(p: { name: string }): unknown } } }).client?.pipeline;
  pipeline?.removePolicy({ name: 'defaultRetryPolicy' });
}

/**
 * Runs `call` with a connector client for the conversation; a failure comes
 * back as TeamsCallFailed. `before` runs just before the call, with everything
 * else ready (the pacer waits there, so the wait ends when the call starts).
 */
export async function withConnector<T>(rt: TeamsRuntime, a: TeamsAddress, call: (client: ConnectorClient) => Promise<T>, before?: () => Promise<void>): Promise<T> {
  if (!rt.adapter || !rt.settings.appId) throw new PermanentFailure('Teams is not configured (MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD), so nothing can be posted there.');
  let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  try {
    await rt.adapter.continueConversationAsync(rt.settings.appId, await referenceFor(rt, a), async (context) => {
      // Caught here: the adapter's onTurnError would otherwise swallow it.
      try {
        const client = context.turnState.get<ConnectorClient>(rt.adapter!.ConnectorClientKey);
        withoutSdkRetries(client);
        await before?.();
        outcome = { ok: true, value: await call(client) };
      } catch (error) {
        outcome = { ok: false, error };
      }
    });
  } catch (error) {
    // Getting the bot's token, or building the client, failed before the call.
    outcome = { ok: false, error };
  }
  if (!outcome) throw new TeamsCallFailed({ kind: 'transient', reason: 'the Bot Connector call did not run' });
  if (!outcome.ok) throw new TeamsCallFailed(classifyTeamsError(outcome.error));
  return outcome.value;
}

/** Posts an activity into the conversation (a channel reply chain included), paced; returns the new activity id. */
export async function postActivity(rt: TeamsRuntime, a: TeamsAddress, activity: Partial<Activity>): Promise<string> {
  const key = paceKey(a);
  try {
    const sent = await withConnector(rt, a, (c) => c.conversations.sendToConversation(a.conversation, activity as Activity), () => rt.pacer.wait(key));
    return sent.id;
  } catch (e) {
    if (e instanceof TeamsCallFailed && e.failure.kind === 'throttled') rt.pacer.pause(key, e.failure.afterMs ?? 1_000);
    throw e;
  }
}

/** Replaces an activity the bot posted (a card that changed), paced like a post. */
export async function updateActivity(rt: TeamsRuntime, a: TeamsAddress, activityId: string, activity: Partial<Activity>): Promise<void> {
  const key = paceKey(a);
  try {
    await withConnector(rt, a, (c) => c.conversations.updateActivity(a.conversation, activityId, { ...activity, id: activityId } as Activity), () => rt.pacer.wait(key));
  } catch (e) {
    if (e instanceof TeamsCallFailed && e.failure.kind === 'throttled') rt.pacer.pause(key, e.failure.afterMs ?? 1_000);
    throw e;
  }
}

/**
 * What the job queue should do about a failure: wait out a Retry-After (with
 * jitter, so conversations throttled together do not come back together),
 * back off on other retryable failures, or stop.
 */
export function jobError(failure: TeamsFailure, random: () => number = Math.random): Error {
  switch (failure.kind) {
    case 'throttled':
      return failure.afterMs === null
        ? new Error(failure.reason)
        : new RetryLater(failure.reason, Math.round(failure.afterMs + random() * Math.min(5_000, 250 + failure.afterMs / 5)));
    case 'transient':
      return new Error(failure.reason);
    case 'blocked':
    case 'permanent':
      return new PermanentFailure(`Teams refused it: ${failure.reason}`, failure.reason);
  }
}
