// Listening agents: a channel (of the web chat or of a chat surface) may let
// named agents hear every message written in it. The repo is implemented in
// src/infra/db; ListenChannels by each chat surface module.

import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { WEB_CHAT, Workspace } from '../entities.ts';

/** The surfaces whose channels agents can listen to: the web chat and the chat surfaces. */
export type ListenSurface = typeof WEB_CHAT | ExternalSurface;

/** A channel agents may listen to: a web channel (its conversation id), a Slack channel id or a Teams channel id. */
export interface ListenPlace {
  surface: ListenSurface;
  channelId: string;
}

/** Where a note is posted into a chat surface's channel: the conversation (key, stored address, title) to post it in. */
export interface ChannelAddress {
  key: string;
  externalRef: Record<string, string>;
  title: string;
}

/** How one chat surface names its channels for listening; each surface module registers one (ListeningService.registerChannels). */
export interface ListenChannels {
  /** The surface, as conversations record it; people write it before a channel id (`slack:C0123ABCD`). */
  readonly surface: ExternalSurface;
  /** The platform's name in sentences ("Slack"). */
  readonly label: string;
  /** A channel argument for help texts (`slack:C0123ABCD`). */
  readonly example: string;
  /** The channel id written after `<surface>:`; null when it is not one of the platform's channel ids (a DM's, say). */
  parseChannel(id: string): string | null;
  /** The channel a conversation's stored address is in; null for DMs, group chats and anything else. */
  channelOf(externalRef: Record<string, string>): string | null;
  /** Where a note to the channel goes; null when the workspace is not connected to the platform. */
  noteAddress(ws: Workspace, channelId: string): Promise<ChannelAddress | null>;
  /** Why no agent can listen to this channel of the workspace (a sentence saying what to do instead); null when one can. Absent: always can. */
  refusal?(ws: Workspace, channelId: string): Promise<string | null>;
}

/** An agent listening to a channel of a workspace. */
export interface ChannelListener extends ListenPlace {
  workspaceId: string;
  agentId: string;
  /** The person who turned it on; null when unknown (the CLI as the system). */
  addedBy: string | null;
  createdAt: Date;
}

/**
 * An agent that leaves a workspace (retired, or its owner taken out of the
 * organization) stops listening there: its rows go with its membership
 * (`removeAgents`, in the same transaction), so an agent joined again hears
 * nothing until an owner lets it listen again (told to the channel). The
 * reads leave out listeners without a token or the receive permission in the
 * workspace: those rows stay, unread, and count again once it is granted again.
 */
export interface ListeningRepo {
  /** Lets the agent listen; false when it already did (its row counts, left out of the reads or not). */
  add(l: Omit<ChannelListener, 'createdAt'>): Promise<boolean>;
  /** Stops the agent listening; false when it was not. */
  remove(workspaceId: string, place: ListenPlace, agentId: string): Promise<boolean>;
  /** Stops the agents listening anywhere in these workspaces (null: in every workspace), as they leave them. */
  removeAgents(agentIds: string[], workspaceIds: string[] | null): Promise<void>;
  /** Stops every agent listening to these channels of the workspace (deleted or archived on the platform); returns the rows removed. */
  removeChannels(workspaceId: string, surface: ListenSurface, channelIds: string[]): Promise<number>;
  /** The channel's listeners, oldest first. */
  list(workspaceId: string, place: ListenPlace): Promise<ChannelListener[]>;
  /** Every listener in the workspace, by channel then age. */
  listWorkspace(workspaceId: string): Promise<ChannelListener[]>;
  /** Whether any agent listens to a Slack or Teams channel of any workspace (a quick check before reading a message in full). */
  anyFor(place: ListenPlace): Promise<boolean>;
}
