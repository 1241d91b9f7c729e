// Listening agents: an owner of a workspace lets named agents hear every
// message of one of its channels (the web chat's or a chat surface's). Off by default. The
// agent hears only channels its owner could read, and keeps only the receive
// side: it speaks in the channel when someone mentions it, never on its own.
import type { AgentService } from '../agents/agent-service.ts';
import type { Actor } from '../actor.ts';
import { hasBridges } from '../bridges/mirror-out.ts';
import { ChatAccess, GENERAL } from '../channels/access.ts';
import { invalidInput, notFound, notPermitted } from '../errors.ts';
import { postAsSystem, type PostTopicOf } from '../messaging/system-post.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import { atLeast } from '../organizations/access.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import { qualifiedName, WEB_CHAT, type Agent, type Workspace } from '../entities.ts';
import { hearers, hearing, receiversOf } from './hearing.ts';
import { ListenPlaces } from './place.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { ChannelListener, ListenChannels, ListenPlace } from './listen-ports.ts';

/** A listener as commands and pages show it. */
export interface ListenerView {
  place: ListenPlace;
  /** `#general`, `Slack channel C…`. */
  channel: string;
  agent: string;
  agentId: string;
  displayName: string;
  since: Date;
}

export class ListeningService {
  /** How each chat surface names its channels (registered by the surface modules). */
  readonly places = new ListenPlaces();
  private readonly changeListeners: Array<(ws: Workspace, place: ListenPlace, note: Message | null) => void> = [];
  private readonly access: ChatAccess;

  constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    private readonly agents: AgentService,
    private readonly clock: Clock,
    /** The post job of each chat surface, for the notes told to its channels. */
    private readonly postTopicOf: PostTopicOf,
    /** Wakes the outbox worker after a note was stored. */
    private readonly afterCommit: () => void = () => {},
  ) {
    this.access = new ChatAccess(store, orgs, clock);
  }

  /** Lets agents listen to a chat surface's channels, named `<surface>:<channel id>`; its channels are told when an agent starts or stops listening. */
  registerChannels(channels: ListenChannels) {
    this.places.register(channels);
  }

  /**
   * Calls `fn` after an agent started or stopped listening to a channel (the
   * web chat updates its header), with the note Switchboard wrote about it
   * (null when none was: see `noteWriter`).
   */
  onChange(fn: (ws: Workspace, place: ListenPlace, note: Message | null) => void) {
    this.changeListeners.push(fn);
  }

  /**
   * The place a channel argument names in the workspace. Web channels must
   * exist, except #general, which every workspace has: it is created on first
   * use here as in the web chat and `bridge add`.
   */
  async place(ws: Workspace, raw: string): Promise<{ place: ListenPlace; label: string; restricted: boolean }> {
    const parsed = this.places.parse(raw);
    if (!parsed) throw invalidInput(`"${raw}" is not a channel Switchboard knows how to name. ${this.places.help()}`);
    if ('place' in parsed) return { place: parsed.place, label: this.places.show(parsed.place), restricted: false };
    const ch =
      parsed.web === GENERAL
        ? await this.access.ensureGeneral(ws)
        : await this.store.chat.channelByName(ws.id, parsed.web);
    if (!ch)
      throw notFound(
        `The channel #${parsed.web} in ${ws.slug}`,
        `Create it in the web chat first, or name another channel. ${this.places.help()}`,
      );
    return {
      place: { surface: WEB_CHAT, channelId: ch.conversationId },
      label: `#${ch.name}`,
      restricted: ch.restricted,
    };
  }

  /** Lets the agent listen to the channel; says so in the channel where the surface can. */
  async listen(
    actor: Actor,
    workspace: string,
    channel: string,
    agentName: string,
  ): Promise<{ listener: ListenerView; added: boolean }> {
    const ws = await this.orgs.workspace(workspace);
    await this.assertOwner(actor, ws);
    const [{ place, label, restricted }, agent] = await Promise.all([
      this.place(ws, channel),
      this.agents.byName(agentName),
    ]);
    const name = qualifiedName(agent);
    if (agent.kind !== 'agent')
      throw invalidInput(`${name} is a person, and people read channels themselves; name an agent (OWNER/NAME).`);
    const me = await this.agents.member(agent, ws);
    if (!me.permissions.receive)
      throw notPermitted(
        `${name} lacks the receive permission in ${ws.slug}, so it could not read what it hears; grant it with \`switchboard agent join ${name} ${ws.slug}\` first.`,
      );
    const refused =
      place.surface === WEB_CHAT ? null : await this.places.get(place.surface)?.refusal?.(ws, place.channelId);
    if (refused) throw invalidInput(refused);
    if (restricted && !(await this.store.chat.isChannelMember(place.channelId, agent.ownerId))) {
      throw notPermitted(
        `${label} is restricted and ${name}'s owner is not in it, so the agent would hear what its owner may not read; add the owner to the channel first.`,
      );
    }
    const writeNote = await this.noteWriter(ws, place);
    const { added, note } = await this.store.transaction(async (tx) => {
      const fresh = await tx.listening.add({
        workspaceId: ws.id,
        ...place,
        agentId: agent.id,
        addedBy: actor.kind === 'person' ? actor.personId : null,
      });
      return { added: fresh, note: fresh ? await writeNote(tx, listenNoteText(agent, true)) : null };
    });
    this.afterCommit();
    if (added) this.changed(ws, place, note);
    return {
      listener: view(
        { ...place, workspaceId: ws.id, agentId: agent.id, addedBy: null, createdAt: new Date() },
        agent,
        label,
      ),
      added,
    };
  }

  /** Stops the agent listening; false when it did not. */
  async unlisten(
    actor: Actor,
    workspace: string,
    channel: string,
    agentName: string,
  ): Promise<{ label: string; agent: string; removed: boolean }> {
    const ws = await this.orgs.workspace(workspace);
    await this.assertOwner(actor, ws);
    const [{ place, label }, agent] = await Promise.all([this.place(ws, channel), this.agents.byName(agentName)]);
    const writeNote = await this.noteWriter(ws, place);
    const { removed, note } = await this.store.transaction(async (tx) => {
      const gone = await tx.listening.remove(ws.id, place, agent.id);
      return { removed: gone, note: gone ? await writeNote(tx, listenNoteText(agent, false)) : null };
    });
    this.afterCommit();
    if (removed) this.changed(ws, place, note);
    return { label, agent: qualifiedName(agent), removed };
  }

  /** Listeners of one channel, or of every channel of the workspace (anyone who can reach it may see who listens). */
  async listeners(actor: Actor, workspace: string, channel?: string): Promise<ListenerView[]> {
    const ws = await this.orgs.workspace(workspace);
    if (actor.kind === 'person' && !(await this.orgs.roleIn(actor.personId, ws)))
      throw notFound(`The workspace "${workspace}"`, '');
    const rows = channel
      ? await this.store.listening.list(ws.id, (await this.place(ws, channel)).place)
      : await this.store.listening.listWorkspace(ws.id);
    return this.views(ws, rows);
  }

  /** Whether any agent listens to this chat channel, in any workspace: a quick check before a surface reads a message in full. */
  anyListens(place: ListenPlace): Promise<boolean> {
    return this.store.listening.anyFor(place);
  }

  /**
   * Stops every agent listening to these channels of a chat surface (deleted or archived there, as the surface
   * reports it: no owner asked, so no permission check and no note). Returns how many listeners were removed.
   */
  channelsGone(workspaceId: string, surface: ExternalSurface, channelIds: string[]): Promise<number> {
    return this.store.listening.removeChannels(workspaceId, surface, channelIds);
  }

  /** Listeners of a web channel by its conversation id (the web chat's header and settings). */
  async ofWebChannel(ws: Workspace, conversationId: string): Promise<ListenerView[]> {
    return this.views(ws, await this.store.listening.list(ws.id, { surface: WEB_CHAT, channelId: conversationId }));
  }

  /**
   * The agents that overhear a message in `conversation`: listeners of its
   * channel other than `exclude` (the sender and those addressed) that may
   * hear it now (see `hearing`; `receivers` are the workspace's agents with the
   * receive permission). Runs in the sending transaction.
   */
  async overhearers(
    tx: Store,
    ws: Workspace,
    conversation: Conversation,
    exclude: Set<string>,
    receivers: Map<string, Agent>,
  ): Promise<string[]> {
    const parent =
      conversation.kind === 'thread' && conversation.parentId
        ? await tx.messages.getConversation(ws.id, conversation.parentId)
        : null;
    const place = this.places.of(conversation, parent);
    if (!place) return [];
    return hearers(tx, ws, place, receivers, exclude);
  }

  /** Listings name only the listeners that would hear the channel's next message. */
  private async views(ws: Workspace, rows: ChannelListener[]): Promise<ListenerView[]> {
    return (await hearing(this.store, ws, rows, receiversOf(await this.agents.directory(ws)))).map(
      ({ row, agent, channel }) => view(row, agent, this.places.show(row, channel?.name)),
    );
  }

  private changed(ws: Workspace, place: ListenPlace, note: Message | null) {
    for (const fn of this.changeListeners) fn(ws, place, note);
  }

  /**
   * Writes the note as Switchboard, in the caller's transaction, where people
   * outside the web chat read the channel: a chat surface's channel (through
   * its post job), or a web channel bridged to one (the note is written there
   * and mirrored like any message). An unbridged web channel gets none: its
   * header says who listens. The writer returns null when it wrote none.
   * What it needs from outside the transaction is read now, before it opens:
   * on the embedded database such a read would wait for the transaction to end.
   */
  private async noteWriter(
    ws: Workspace,
    place: ListenPlace,
  ): Promise<(tx: Store, body: string) => Promise<Message | null>> {
    const system = await this.orgs.systemAgent();
    const address =
      place.surface === WEB_CHAT ? null : await this.places.get(place.surface)?.noteAddress(ws, place.channelId);
    return async (tx, body) => {
      const conv =
        place.surface === WEB_CHAT
          ? await tx.messages.getConversation(ws.id, place.channelId)
          : address
            ? await tx.messages.conversation({
                workspaceId: ws.id,
                kind: 'external',
                surface: place.surface,
                ...address,
              })
            : null;
      if (!conv || (conv.surface === WEB_CHAT && !(await hasBridges(tx, conv)))) return null;
      return postAsSystem(tx, ws, system, conv, body, this.clock.now(), this.postTopicOf);
    };
  }

  private async assertOwner(actor: Actor, ws: Workspace) {
    if (actor.kind === 'system') return;
    if (!atLeast(await this.orgs.roleIn(actor.personId, ws), 'owner')) {
      throw notPermitted(
        `Only an owner of ${ws.slug} can choose which agents listen to its channels; ask one of its owners.`,
      );
    }
  }
}

function view(r: ChannelListener, agent: Agent, label: string): ListenerView {
  return {
    place: { surface: r.surface, channelId: r.channelId },
    channel: label,
    agent: qualifiedName(agent),
    agentId: agent.id,
    displayName: agent.displayName,
    since: r.createdAt,
  };
}

/** The note a chat channel gets when an agent starts or stops listening. */
function listenNoteText(agent: Agent, on: boolean): string {
  const name = `${agent.displayName} (${qualifiedName(agent)})`;
  return on
    ? `${name} now listens to this channel: it receives every message written here, and answers only when someone mentions it.`
    : `${name} no longer listens to this channel.`;
}
