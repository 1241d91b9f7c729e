// A message from a person in Teams, turned into a domain send: who wrote it
// (an external identity, linked or not), the conversation record for its chat
// or reply chain (with a deep link), and the agents it goes to.
import { TeamsInfo, type Activity, type TurnContext } from 'botbuilder';
import type { WorkspaceAgent } from '../../domain/agents/agent-service.ts';
import { resolveNames as resolveChatNames } from '../../domain/agents/naming.ts';
import type { SendResult } from '../../domain/messaging/messaging-service.ts';
import type { ExternalIdentity } from '../../domain/surfaces/ports.ts';
import type { Agent, Workspace } from '../../domain/types.ts';
import { addressRef, encodeConversationKey, messageLink, rootOf, type TeamsAddress, type TeamsConversationType } from './address.ts';
import { loggable } from './errors.ts';
import { linkingRequired, promptToLinkOnce } from './linking.ts';
import type { TeamsRuntime } from './runtime.ts';

/** Where a Teams request is handled: the workspace its tenant maps to, and who is in it. */
export interface TeamsTarget {
  workspace: Workspace;
  directory: WorkspaceAgent[];
}

/** Who wrote a Teams message, and which Switchboard agent speaks for them. */
export interface TeamsAsker {
  identity: ExternalIdentity;
  /** Their person agent when linked and in the workspace; otherwise the guest agent. */
  sender: Agent;
  asGuest: boolean;
}

interface TeamsChannelData {
  tenant?: { id?: string };
  teamsChannelId?: string;
  channel?: { id?: string };
}

const TYPES = new Set<TeamsConversationType>(['personal', 'groupChat', 'channel']);

/** The address of the conversation an activity came from; null when it carries no tenant (not Teams). */
export function addressOf(activity: Partial<Activity>): TeamsAddress | null {
  const data = (activity.channelData ?? {}) as TeamsChannelData;
  const conversation = activity.conversation;
  const tenant = conversation?.tenantId ?? data.tenant?.id;
  if (!conversation?.id || !tenant || !activity.serviceUrl) return null;
  const declared = conversation.conversationType as TeamsConversationType;
  const type: TeamsConversationType = TYPES.has(declared) ? declared : conversation.isGroup ? 'groupChat' : 'personal';
  const channel = data.teamsChannelId ?? data.channel?.id;
  const root = rootOf(conversation.id);
  return {
    tenant, conversation: conversation.id, type, serviceUrl: activity.serviceUrl,
    ...(type === 'channel' && channel ? { channel } : {}), ...(type === 'channel' && root ? { root } : {}),
  };
}

/** Resolves the names a message gives in the directory; unknown or ambiguous ones become sentences for the person. */
export const resolveNames = (directory: WorkspaceAgent[], names: string[]) => resolveChatNames(directory, names, (n) => `"${n}"`);

/**
 * The external identity of the Teams user who sent the turn's activity
 * (created on first sight; name and e-mail refreshed from Teams when older
 * than the TTL), and the sender for their messages: a linked person who can
 * reach the workspace writes as their person agent; anyone else as the guest.
 */
export async function resolveAsker(rt: TeamsRuntime, context: TurnContext, tenant: string, directory: WorkspaceAgent[]): Promise<TeamsAsker> {
  const from = context.activity.from;
  const key = { surface: 'teams' as const, tenantId: tenant, externalUserId: from.aadObjectId ?? from.id };
  const now = rt.app.clock.now();
  let identity = await rt.identities.find(key);
  if (!identity?.profileFetchedAt || now.getTime() - identity.profileFetchedAt.getTime() > rt.settings.profileTtlMs) {
    // A profile Teams will not give right now must not stop the message: the name from the activity will do.
    const member = await TeamsInfo.getMember(context, from.id).catch((err: unknown) => {
      rt.logger.warn({ err: loggable(err), tenant }, 'could not read the Teams profile; keeping the name from the message');
      return undefined;
    });
    identity = await rt.identities.upsert(key, {
      displayName: member?.name || from.name || identity?.displayName || 'Teams user',
      email: member?.email ?? member?.userPrincipalName ?? identity?.email ?? null,
      details: { userId: from.id, userPrincipalName: member?.userPrincipalName, givenName: member?.givenName, surname: member?.surname, userRole: member?.userRole },
      fetchedAt: now,
    });
  }
  if (identity.personId) {
    const entry = directory.find((d) => d.agent.kind === 'person' && d.agent.ownerId === identity!.personId);
    if (entry) return { identity, sender: entry.agent, asGuest: false };
  }
  return { identity, sender: await rt.guest(), asGuest: true };
}

function titleOf(a: TeamsAddress, asker: TeamsAsker, body: string): string {
  const excerpt = body.replace(/\s+/g, ' ').slice(0, 60);
  if (a.type === 'personal') return `Teams chat with ${asker.identity.displayName}`;
  return a.type === 'groupChat' ? `Teams group chat: ${excerpt}` : `Teams: ${excerpt}`;
}

/**
 * Delivers a Teams message to agents: records who wrote it, finds or creates
 * the conversation for its chat or reply chain (with a deep link to the chain's
 * first message), and sends it as from Teams, so it is never posted back.
 * Refusals (permissions, plan limits) come back as sentences for the person.
 */
export async function deliverFromTeams(rt: TeamsRuntime, target: TeamsTarget, context: TurnContext, address: TeamsAddress, body: string, recipients: WorkspaceAgent[]): Promise<{ result: SendResult; refusals: string[] }> {
  const { workspace: ws, directory } = target;
  const asker = await resolveAsker(rt, context, address.tenant, directory);
  if (asker.asGuest && ws.requireLinking) await linkingRequired(rt, asker.identity);
  const activityId = context.activity.id ?? '';
  const conversation = await rt.app.store.messages.conversation({
    workspaceId: ws.id, kind: 'external', surface: 'teams', key: encodeConversationKey(address), title: titleOf(address, asker, body),
    externalRef: addressRef(address), permalink: messageLink(address, address.root ?? activityId),
  });
  const result = await rt.app.messaging.send({
    workspace: ws, sender: asker.sender, asGuest: asker.asGuest, askerIdentityId: asker.identity.id,
    conversation, recipients, body, surface: 'teams', permalink: messageLink(address, activityId), externalId: activityId || null,
  });
  const refusals = result.recipients.filter((r) => r.status === 'refused').map((r) => `${r.to} did not get it: ${r.reason}`);
  // The first time an unlinked person talks to an agent, the link card goes to their personal chat.
  if (asker.asGuest) await promptToLinkOnce(rt, asker.identity, 'first');
  return { result, refusals };
}
