// What a send is given and what it answers: the message and its sender, where it
// goes, and how each recipient took it. MessagingService.send takes and returns these.
import type { WorkspaceAgent } from '../agents/agent-service.ts';
import type { Agent, SurfaceName, Workspace } from '../entities.ts';
import type { RefusalRule } from './rules.ts';
import type { Conversation, LivePost, Message } from './message.ts';

export interface SendInput {
  workspace: Workspace;
  sender: Agent;
  to?: string[];
  conversationId?: string;
  body: string;
  replyTo?: string;
  surface?: SurfaceName;
  /** For a message arriving from a chat surface: the external identity behind it. */
  askerIdentityId?: string | null;
  /** When the message came from a surface: its permalink and platform id. */
  permalink?: string | null;
  externalId?: string | null;
  /** When set, the message lands in this conversation (surface adapters pass the linked thread). */
  conversation?: Conversation;
  /** Recipients chosen by a surface (e.g. the agents mentioned in Slack), bypassing name resolution. */
  recipients?: WorkspaceAgent[];
  /** The workspace directory the caller read while handling this message (a surface routing it), so it is not read twice. */
  directory?: WorkspaceAgent[];
  /**
   * Set by a surface adapter for a chat user who is not linked: the sender is then
   * the guest agent (OrgService.guestAgent), which is not a workspace member, and
   * `askerIdentityId` says who really wrote. Guests never act with anyone's access.
   */
  asGuest?: boolean;
  /** The id to store the message under (a streamed message keeps the id its live post carried). */
  id?: string;
  /** The platform post a stream already made of this message: the post job finishes it instead of posting again. */
  livePost?: LivePost;
}

export interface RecipientResult {
  to: string;
  agent_id: string | null;
  status: 'delivered' | 'refused';
  reason?: string;
  /** The rule that refused it (absent when delivered). */
  rule?: RefusalRule;
}

export interface SendResult {
  message: Message | null;
  conversation: Conversation | null;
  recipients: RecipientResult[];
}
