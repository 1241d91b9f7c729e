// Where a Teams conversation lives: a tenant, a Bot Framework conversation id
// (a personal chat `a:…`, a group chat `19:…@thread.v2`, or a channel reply
// chain `19:…@thread.tacv2;messageid=<root>`) and the service URL to post to.
// The conversation key `teams:<tenant>:<conversation id>` finds its record again.
import { z } from 'zod';

export type TeamsConversationType = 'personal' | 'groupChat' | 'channel';

export interface TeamsAddress {
  tenant: string;
  conversation: string;
  type: TeamsConversationType;
  /** The Bot Connector base URL Teams gave for this conversation. */
  serviceUrl: string;
  /** Channels: the channel id and the root message of the reply chain. */
  channel?: string;
  root?: string;
}

const Address = z.object({
  tenant: z
    .string()
    .min(1)
    .regex(/^[^:\s]+$/),
  conversation: z.string().min(1).regex(/^\S+$/),
  type: z.enum(['personal', 'groupChat', 'channel']),
  serviceUrl: z.string().regex(/^https?:\/\//),
  channel: z.string().min(1).optional(),
  root: z.string().min(1).optional(),
});

/** `teams:<tenant>:<conversation id>`; throws on an address Teams never gives. */
export function encodeConversationKey(a: TeamsAddress): string {
  const parsed = Address.safeParse(a);
  if (!parsed.success) throw new Error(`not a Teams conversation address: ${JSON.stringify(a)}`);
  return `teams:${a.tenant}:${a.conversation}`;
}

/** The tenant and conversation id a key names; null when it is not a Teams key. */
export function decodeConversationKey(key: string): { tenant: string; conversation: string } | null {
  const m = /^teams:([^:\s]+):(\S+)$/.exec(key);
  return m ? { tenant: m[1]!, conversation: m[2]! } : null;
}

/** The conversation's `externalRef` (plain strings, as the store keeps it). */
export function addressRef(a: TeamsAddress): Record<string, string> {
  const ref: Record<string, string> = {
    tenant: a.tenant,
    conversation: a.conversation,
    type: a.type,
    serviceUrl: a.serviceUrl,
  };
  if (a.channel) ref.channel = a.channel;
  if (a.root) ref.root = a.root;
  return ref;
}

/** The address back from an `externalRef`; null when it is not a Teams address. */
export function addressFromRef(ref: Record<string, string> | null): TeamsAddress | null {
  const parsed = Address.safeParse(ref ?? {});
  return parsed.success ? parsed.data : null;
}

/** The channel reply chain's root message id in a conversation id (`…;messageid=<root>`). */
export function rootOf(conversationId: string): string | undefined {
  return /;messageid=(\d+)$/.exec(conversationId)?.[1];
}

/** The conversation pacing applies to: a channel, not each of its reply chains. */
export function paceKey(a: Pick<TeamsAddress, 'conversation'>): string {
  return a.conversation.replace(/;messageid=\d+$/, '');
}

/**
 * A deep link that opens a message in Teams: in a channel (within its reply
 * chain) or a group chat. Personal chats with a bot have no stable link: null.
 */
export function messageLink(a: TeamsAddress, messageId: string): string | null {
  if (!/^\d+$/.test(messageId)) return null;
  if (a.type === 'channel' && a.channel) {
    const q = new URLSearchParams({ tenantId: a.tenant, parentMessageId: a.root ?? messageId, createdTime: messageId });
    return `https://teams.microsoft.com/l/message/${encodeURIComponent(a.channel)}/${messageId}?${q}`;
  }
  if (a.type === 'groupChat') {
    const q = new URLSearchParams({ tenantId: a.tenant, context: JSON.stringify({ contextType: 'chat' }) });
    return `https://teams.microsoft.com/l/message/${encodeURIComponent(a.conversation)}/${messageId}?${q}`;
  }
  return null;
}
