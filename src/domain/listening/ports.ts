// Listening agents: a channel (web, Slack or Teams) may let named agents hear
// every message written in it. The port is implemented in src/adapters/db.

import type { ExternalSurface } from '../surfaces/ports.ts';

/** The surfaces whose channels agents can listen to: the web chat and the chat surfaces. */
export type ListenSurface = 'web' | ExternalSurface;

/** A channel agents may listen to: a web channel (its conversation id), a Slack channel id or a Teams channel id. */
export interface ListenPlace {
  surface: ListenSurface;
  channelId: string;
}

/** An agent listening to a channel of a workspace. */
export interface ChannelListener extends ListenPlace {
  workspaceId: string;
  agentId: string;
  /** The person who turned it on; null when unknown (the CLI as the system). */
  addedBy: string | null;
  createdAt: Date;
}

export interface ListeningRepo {
  /** Lets the agent listen; false when it already did. */
  add(l: Omit<ChannelListener, 'createdAt'>): Promise<boolean>;
  /** Stops the agent listening; false when it was not. */
  remove(workspaceId: string, place: ListenPlace, agentId: string): Promise<boolean>;
  /** The channel's listeners, oldest first. */
  list(workspaceId: string, place: ListenPlace): Promise<ChannelListener[]>;
  /** Every listener in the workspace, by channel then age. */
  listWorkspace(workspaceId: string): Promise<ChannelListener[]>;
  /** Whether any agent listens to a Slack or Teams channel of any workspace (a quick check before reading a message in full). */
  anyFor(place: ListenPlace): Promise<boolean>;
}
