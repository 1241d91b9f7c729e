// Whether a listener may hear its channel now: the one rule the reads
// (listings, who overhears a message) and the chat surfaces' intake (whether a
// plain channel message is kept at all) both ask. A row outlives a change in
// its agent's standing (its owner out of the workspace, the owner out of a
// restricted web channel), so it is asked again at every message and listing.
import type { WorkspaceAgent } from '../agents/agent-service.ts';
import { GENERAL } from '../channels/access.ts';
import type { Channel } from '../channels/channel-ports.ts';
import type { Store } from '../ports.ts';
import { WEB_CHAT, type Agent, type Workspace } from '../entities.ts';
import type { ChannelListener, ListenPlace } from './listen-ports.ts';

/** A listener that may hear its channel, with its agent and, for a web channel, the channel. */
export interface Hearing {
  row: ChannelListener;
  agent: Agent;
  /** The web channel; null for a chat surface's. */
  channel: Channel | null;
}

/** The agents of a workspace directory that may be listeners: agents (not people) with the receive permission. */
export function receiversOf(directory: WorkspaceAgent[]): Map<string, Agent> {
  return new Map(
    directory.filter((d) => d.agent.kind === 'agent' && d.permissions.receive).map((d) => [d.agent.id, d.agent]),
  );
}

/**
 * The listeners that may hear their channel now: the agent is among
 * `receivers` (still a member with the receive permission, its owner still
 * reaching the workspace: see `receiversOf`) and, in a restricted web channel,
 * its owner is in the channel.
 */
export async function hearing(
  store: Store,
  ws: Workspace,
  rows: ChannelListener[],
  receivers: Map<string, Agent>,
): Promise<Hearing[]> {
  const channels = new Map<string, Promise<Channel | null>>();
  const out: Hearing[] = [];
  for (const row of rows) {
    const agent = receivers.get(row.agentId);
    if (!agent) continue;
    if (row.surface !== WEB_CHAT) {
      out.push({ row, agent, channel: null });
      continue;
    }
    if (!channels.has(row.channelId)) channels.set(row.channelId, store.chat.channel(ws.id, row.channelId));
    const channel = await channels.get(row.channelId)!;
    if (
      channel?.restricted &&
      channel.name !== GENERAL &&
      !(await store.chat.isChannelMember(channel.conversationId, agent.ownerId))
    )
      continue;
    out.push({ row, agent, channel });
  }
  return out;
}

/** The agents that would hear the next message of `place`, oldest listener first, but those in `exclude`. */
export async function hearers(
  store: Store,
  ws: Workspace,
  place: ListenPlace,
  receivers: Map<string, Agent>,
  exclude: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const rows = (await store.listening.list(ws.id, place)).filter((l) => !exclude.has(l.agentId));
  return (await hearing(store, ws, rows, receivers)).map((h) => h.row.agentId);
}
