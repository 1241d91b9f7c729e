// What a chat surface hands the core when a person writes (a normalised
// message), the small port the core calls back for what only the platform
// knows, and what the core decided. Slack, Teams and the web chat fill these
// in; the routing, asker, link prompt and delivery rules live in inbound-service.ts.
import type { WorkspaceAgent } from '../agents/agent-service.ts';
import type { PromptReason } from '../linking/link-service.ts';
import type { SendResult } from '../messaging/messaging-service.ts';
import type { Conversation } from '../messaging/message.ts';
import type { Agent, Workspace } from '../entities.ts';
import type { ExternalIdentity, ExternalProfile, ExternalSurface } from './surface-ports.ts';

/** Where a message was written: a one-to-one chat with the app, a group chat (Slack mpim, Teams group chat), or a channel. */
export type ChatPlaceKind = 'dm' | 'group' | 'channel';

/** A person's message from a chat app, in the core's terms. */
export interface InboundMessage {
  surface: ExternalSurface;
  /** The Slack team or Teams tenant. */
  tenantId: string;
  /** The channel, group chat or DM the message was written in. */
  channelId: string;
  place: ChatPlaceKind;
  /** The surface's key for the conversation (thread or chat) the message belongs to. */
  conversationKey: string;
  /** The address stored with that conversation, from which the surface posts back. */
  externalRef: Record<string, string>;
  /** The message's own id on the platform. */
  messageId: string;
  /** The first message of its thread (itself when it starts one); null outside threads. */
  threadRootId: string | null;
  /** The platform's id of the person who wrote it. */
  authorId: string;
  /** What agents receive, the app's own mention removed. */
  text: string;
  /** The agents it names (`reviewer`, `alice/builder`), lowercased, in order, without repeats. */
  names: string[];
  /** True when written to the app (a mention, a DM, a command); false for a thread reply that names nobody and only continues a thread. */
  addressed: boolean;
}

/**
 * A message from a surface that knows its author and workspace already: a
 * signed-in person writing in the web chat as their person agent. There is no
 * asker to resolve and nothing to link.
 */
export interface KnownMessage {
  workspace: Workspace;
  /** The author's own agent, which speaks for them. */
  sender: Agent;
  /** Where it was written; the surface has checked that the author may write there. */
  conversation: Conversation;
  /** What agents receive, as Markdown. */
  text: string;
  /** The agents and people it names (`reviewer`, `alice/builder`, `bob`), lowercased, in order, without repeats. */
  names: string[];
}

/** What the core did with a known author's message: the send result, and sentences for the author (unknown names, refusals). */
export interface KnownOutcome {
  result: SendResult;
  notices: string[];
}

/** The inbound service's step for a known author (InboundService.deliverKnown), as a surface's service receives it. */
export type DeliverKnown = (port: SurfacePort, msg: KnownMessage) => Promise<KnownOutcome>;

/** What only the platform knows or does, for one inbound message; built by the surface per request. */
export interface SurfacePort {
  /** The surface the message came from. */
  readonly surface: ExternalSurface;
  /** The platform's name as people read it in titles and sentences ("Slack"). */
  readonly label: string;
  /** How long a stored profile is trusted before `profile` is asked again. */
  readonly profileTtlMs: number;
  /** The workspace the tenant is connected to; null when it is not connected (yet). */
  workspaceOf(tenantId: string): Promise<Workspace | null>;
  /** The author's profile as the platform gives it; null when it would not (the message still goes through). Never throws. */
  profile(authorId: string): Promise<ExternalProfile | null>;
  /** Sends the link prompt to the person where only they see it; false when it could not be sent. Never throws. */
  sendLinkPrompt(identity: ExternalIdentity, reason: PromptReason): Promise<boolean>;
  /** A link to one of the platform's messages; null when the platform would not give one. Never throws. */
  permalink(messageId: string): Promise<string | null>;
  /** An agent name quoted the way the platform shows it in a sentence. */
  showName(name: string): string;
  /**
   * How to get a link, finishing a sentence: `justSent` says whether a prompt went out for this very message,
   * `sendFailed` that one was due but could not be sent (so none can be pointed to).
   */
  linkHowTo(justSent: boolean, sendFailed?: boolean): string;
}

/** Who wrote a chat message, and which Switchboard agent speaks for them. */
export interface ChatAsker {
  identity: ExternalIdentity;
  /** Their person agent when linked and in the workspace; otherwise the guest agent. */
  sender: Agent;
  asGuest: boolean;
}

/** A workspace and its directory, read once per message. */
export interface InboundTarget {
  workspace: Workspace;
  directory: WorkspaceAgent[];
}

/** What the core decided about an inbound message; the surface renders each case its own way. */
export type InboundOutcome =
  /** The tenant is not connected to a workspace. */
  | { kind: 'not-connected' }
  /** Nothing to do: a thread reply no agent took part in, or an empty message. */
  | { kind: 'ignored' }
  /** A DM to the app with no agent chosen yet: show the picker. */
  | { kind: 'choose-agent'; workspace: Workspace; directory: WorkspaceAgent[] }
  /** A mention that names no agent where no default applies: say how to name one. */
  | { kind: 'name-an-agent'; workspace: Workspace; directory: WorkspaceAgent[] }
  /** Sent (or refused per recipient); `notices` are sentences for the person (unknown names, refusals). */
  | { kind: 'handled'; workspace: Workspace; notices: string[]; result: SendResult | null };
