// Teams' side of the one inbound pipeline: an activity's address, the message
// normalised into the core's InboundMessage, and the SurfacePort the core
// calls back for profiles, deep links, the link card and the chosen agent.
import { TeamsInfo, type Activity, type TurnContext } from 'botbuilder';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import { resolveNames as resolveChatNames } from '../../core/agents/naming.ts';
import type { InboundMessage, SurfacePort } from '../../core/surfaces/inbound.ts';
import type { Workspace } from '../../core/entities.ts';
import {
  addressRef,
  encodeConversationKey,
  messageLink,
  rootOf,
  type TeamsAddress,
  type TeamsConversationType,
} from './thread-id.ts';
import { loggable } from './errors.ts';
import { sendLinkCard } from './linking.ts';
import { TEAMS } from './topics.ts';
import { workspaceOfTenant, type TeamsRuntime } from './runtime.ts';
import type { TeamsMarkdown } from './format/in.ts';

/** Where a Teams request is handled: the workspace its tenant maps to, and who is in it. */
export interface TeamsTarget {
  workspace: Workspace;
  directory: WorkspaceAgent[];
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
    tenant,
    conversation: conversation.id,
    type,
    serviceUrl: activity.serviceUrl,
    ...(type === 'channel' && channel ? { channel } : {}),
    ...(type === 'channel' && root ? { root } : {}),
  };
}

/** The Teams user who wrote an activity, as Switchboard keys them: their Entra ID object id (the Bot Framework id when absent). */
export const authorOf = (activity: Partial<Activity>) => activity.from?.aadObjectId ?? activity.from?.id ?? '';

/** Resolves the names a message gives in the directory; unknown or ambiguous ones become sentences for the person. */
export const resolveNames = (directory: WorkspaceAgent[], names: string[]) =>
  resolveChatNames(directory, names, (n) => `"${n}"`);

/**
 * The core's view of a Teams message, read into Markdown (format-in.ts)
 * already. `addressed`: written to the bot (the personal chat, or a mention);
 * a channel message that is not only continues a reply chain or is overheard.
 */
export function normalise(
  activity: Partial<Activity>,
  address: TeamsAddress,
  read: TeamsMarkdown,
  addressed = true,
): InboundMessage {
  const personal = address.type === 'personal';
  const messageId = activity.id ?? '';
  // In the personal chat only explicit @names redirect a message; elsewhere `ask reviewer …` names the agent too.
  const names = personal ? read.mentioned : read.names;
  return {
    surface: 'teams',
    tenantId: address.tenant,
    channelId: address.channel ?? address.conversation,
    place: personal ? 'dm' : address.type === 'groupChat' ? 'group' : 'channel',
    conversationKey: encodeConversationKey(address),
    externalRef: addressRef(address),
    // A chat's record links to the message that started it; a channel's to its reply chain's root.
    messageId,
    threadRootId: address.root ?? (messageId || null),
    authorId: authorOf(activity),
    text: read.markdown,
    names,
    addressed,
  };
}

/** What the core asks Teams while handling the turn's message. */
export function teamsPort(rt: TeamsRuntime, context: TurnContext, address: TeamsAddress): SurfacePort {
  const from = context.activity.from;
  return {
    ...TEAMS,
    profileTtlMs: rt.settings.profileTtlMs,
    workspaceOf: (tenantId) => workspaceOfTenant(rt, tenantId),
    async profile() {
      // A profile Teams will not give right now must not stop the message: the name from the activity will do.
      const member = await TeamsInfo.getMember(context, from.id).catch((err: unknown) => {
        rt.logger.warn(
          { err: loggable(err), tenant: address.tenant },
          'could not read the Teams profile; keeping the name from the message',
        );
        return undefined;
      });
      return {
        displayName: member?.name || from.name || 'Teams user',
        email: member?.email ?? member?.userPrincipalName ?? null,
        details: {
          userId: from.id,
          userPrincipalName: member?.userPrincipalName,
          givenName: member?.givenName,
          surname: member?.surname,
          userRole: member?.userRole,
        },
        fetchedAt: rt.core.clock.now(),
      };
    },
    sendLinkPrompt: (identity, reason) => sendLinkCard(rt, identity, reason),
    permalink: async (messageId) => messageLink(address, messageId),
    showName: (n) => `"${n}"`,
    linkHowTo: (justSent) =>
      justSent ? 'I sent you a link in our personal chat' : 'Write "link" to me in our personal chat for a link',
  };
}
