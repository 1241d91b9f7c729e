// Proactive calls to the Bot Connector (posting an agent's answer, a card,
// updating a card) from jobs, outside any incoming turn. The SDK authenticates
// them; its own retries are turned off so that each job attempt makes one call
// and the outbox, which survives restarts, owns retrying, pacing and backoff.
import type { Activity, ConversationReference } from 'botbuilder';
import type { ConnectorClient } from 'botframework-connector';
// The connector's own model of an entity, which its serializer applies to every activity it sends.
import { Entity as entityMapper } from 'botframework-connector/lib/connectorApi/models/mappers.js';
import { DeliveryError } from '../../core/delivery/failure.ts';
import { pacedCall } from '../../core/delivery/pacer.ts';
import { PermanentFailure } from '../../core/errors.ts';
import { paceKey, type TeamsAddress } from './thread-id.ts';
import { classifyTeamsError } from './errors.ts';
import type { TeamsRuntime } from './runtime.ts';

// The connector's serializer keeps only an entity's type, text and mention, so the message entity that carries
// Teams' AI label and citations (ai-content.ts) would reach Teams empty. The Bot Framework's Entity takes any other
// properties; the serializer is told to keep them.
entityMapper.type.additionalProperties = { type: { name: 'Object' } };

/** The reference to continue a conversation with: the stored one when the bot has seen it (newest service URL), else built from the address. */
export async function referenceFor(rt: TeamsRuntime, a: TeamsAddress): Promise<Partial<ConversationReference>> {
  const stored = (await rt.references.get(a.conversation)) as Partial<ConversationReference> | null;
  return {
    channelId: 'msteams',
    bot: stored?.bot ?? { id: `28:${rt.settings.appId}`, name: 'Switchboard' },
    serviceUrl: stored?.serviceUrl ?? a.serviceUrl,
    conversation: {
      id: a.conversation,
      conversationType: a.type,
      tenantId: a.tenant,
      isGroup: a.type !== 'personal',
      name: '',
    },
  };
}

/** Removes the connector pipeline's retry policy (429 with Retry-After, 5xx with backoff, up to 3 times). */
function withoutSdkRetries(client: ConnectorClient): void {
  const pipeline = (client as unknown as { client?: { pipeline?: { removePolicy(p: { name: string }): unknown } } })
    .client?.pipeline;
  pipeline?.removePolicy({ name: 'defaultRetryPolicy' });
}

/** Runs `call` with a connector client for the conversation; a failure comes back as a DeliveryError. */
export async function withConnector<T>(
  rt: TeamsRuntime,
  a: TeamsAddress,
  call: (client: ConnectorClient) => Promise<T>,
): Promise<T> {
  if (!rt.adapter || !rt.settings.appId)
    throw new PermanentFailure(
      'Teams is not configured (MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD), so nothing can be posted there.',
    );
  let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  try {
    await rt.adapter.continueConversationAsync(rt.settings.appId, await referenceFor(rt, a), async (context) => {
      // Caught here: the adapter's onTurnError would otherwise swallow it.
      try {
        const client = context.turnState.get<ConnectorClient>(rt.adapter!.ConnectorClientKey);
        withoutSdkRetries(client);
        outcome = { ok: true, value: await call(client) };
      } catch (error) {
        outcome = { ok: false, error };
      }
    });
  } catch (error) {
    // Getting the bot's token, or building the client, failed before the call.
    outcome = { ok: false, error };
  }
  if (!outcome) throw new DeliveryError({ kind: 'transient', reason: 'the Bot Connector call did not run' });
  if (!outcome.ok) throw new DeliveryError(classifyTeamsError(outcome.error));
  return outcome.value;
}

/**
 * The connector's calls on an activity, made at once. The delivery ports (outbound.ts, live.ts) use these: the jobs
 * that call them (post, post change, live update) wait for the conversation's turn themselves, with the same pacer.
 */
export const activityCalls = {
  /** Posts an activity into the conversation (a channel reply chain included); returns the new activity id. */
  post: async (rt: TeamsRuntime, a: TeamsAddress, activity: Partial<Activity>): Promise<string> =>
    (await withConnector(rt, a, (c) => c.conversations.sendToConversation(a.conversation, activity as Activity))).id,
  /** Replaces an activity the bot posted. */
  update: async (rt: TeamsRuntime, a: TeamsAddress, activityId: string, activity: Partial<Activity>): Promise<void> => {
    await withConnector(rt, a, (c) =>
      c.conversations.updateActivity(a.conversation, activityId, { ...activity, id: activityId } as Activity),
    );
  },
  /** Deletes an activity the bot posted. */
  remove: async (rt: TeamsRuntime, a: TeamsAddress, activityId: string): Promise<void> => {
    await withConnector(rt, a, (c) => c.conversations.deleteActivity(a.conversation, activityId));
  },
};

/** Posts an activity in the conversation's turn (pacer.ts), for callers no job paces; returns the new activity id. */
export const postActivity = (rt: TeamsRuntime, a: TeamsAddress, activity: Partial<Activity>): Promise<string> =>
  pacedCall(rt.pacer, paceKey(a), () => activityCalls.post(rt, a, activity));

/** Replaces an activity the bot posted (a card that changed), in the conversation's turn. */
export const updateActivity = (
  rt: TeamsRuntime,
  a: TeamsAddress,
  activityId: string,
  activity: Partial<Activity>,
): Promise<void> => pacedCall(rt.pacer, paceKey(a), () => activityCalls.update(rt, a, activityId, activity));
