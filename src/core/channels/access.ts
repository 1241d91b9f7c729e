import { invalidInput, notFound, SwitchboardError } from '../errors.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import type { Agent, Person, Workspace, WorkspaceRole } from '../entities.ts';
import type { Conversation } from '../messaging/message.ts';
import type { Channel } from './channel-ports.ts';

/** A signed-in person looking at one workspace, with the person agent they write as. */
export interface Viewer {
  person: Person;
  workspace: Workspace;
  role: WorkspaceRole;
  agent: Agent;
}

/** The channel every workspace has; everyone who reaches the workspace is in it and stays in it. */
export const GENERAL = 'general';
export const channelKey = (name: string) => `channel:${name}`;

const hidden = (id: string) =>
  new SwitchboardError(
    'NOT_FOUND',
    `There is no conversation ${id} that you can see in this workspace; pick one from the sidebar.`,
  );

/** Who may see what in the web chat. A conversation you may not see is reported as absent, never as forbidden. */
export class ChatAccess {
  constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    private readonly clock: Clock,
  ) {}

  /** The person in the workspace; NOT_FOUND when it does not exist or they cannot reach it (the two look the same). */
  async viewer(personId: string, workspace: string): Promise<Viewer> {
    const [person, ws] = await Promise.all([this.store.people.get(personId), this.store.workspaces.get(workspace)]);
    const role = person && ws ? await this.orgs.roleIn(person.id, ws) : null;
    if (!person || !ws || !role)
      throw notFound(`The workspace "${workspace}"`, 'Pick one of your workspaces, or ask an admin to add you.');
    const agent = await this.store.agents.personAgent(person.id);
    if (!agent) throw notFound(`The person agent of @${person.handle}`, 'Ask an admin to re-create the person.');
    return { person, workspace: ws, role, agent };
  }

  /** #general of the workspace, created on first use. */
  async ensureGeneral(ws: Workspace): Promise<Channel> {
    const existing = await this.store.chat.channelByName(ws.id, GENERAL);
    if (existing) return existing;
    return this.store
      .transaction(async (tx) => {
        const conv = await tx.messages.conversation({
          workspaceId: ws.id,
          kind: 'channel',
          key: channelKey(GENERAL),
          title: GENERAL,
          surface: 'web',
        });
        return (
          (await tx.chat.channel(ws.id, conv.id)) ??
          tx.chat.createChannel({
            conversationId: conv.id,
            workspaceId: ws.id,
            name: GENERAL,
            restricted: false,
            description: 'Everyone in the workspace. Mention an agent with @name to ask it something.',
            createdBy: null,
          })
        );
      })
      .catch(async (e) => {
        // Two first visits at once: the other one created it.
        const again = await this.store.chat.channelByName(ws.id, GENERAL);
        if (again) return again;
        throw e;
      });
  }

  async isMember(v: Viewer, ch: Channel): Promise<boolean> {
    return ch.name === GENERAL || this.store.chat.isChannelMember(ch.conversationId, v.person.id);
  }

  /**
   * Whether the viewer may read a conversation: a channel if it is open or they
   * are in it, a thread if they may read what it hangs off, anything else
   * (DMs, linked Slack/Teams threads) if their person agent takes part in it.
   */
  async canSee(v: Viewer, c: Conversation, depth = 0): Promise<boolean> {
    if (c.workspaceId !== v.workspace.id) return false;
    if (c.kind === 'channel') {
      const ch = await this.store.chat.channel(v.workspace.id, c.id);
      return Boolean(ch) && (!ch!.restricted || (await this.isMember(v, ch!)));
    }
    if (c.kind === 'thread' && c.parentId && depth < 2) {
      const parent = await this.store.messages.getConversation(v.workspace.id, c.parentId);
      if (parent) return this.canSee(v, parent, depth + 1);
    }
    return (await this.store.messages.participants(c.id)).includes(v.agent.id);
  }

  /** The conversation, if the viewer may read it; NOT_FOUND otherwise. */
  async conversation(v: Viewer, id: string): Promise<Conversation> {
    const c = await this.store.messages.getConversation(v.workspace.id, id);
    if (!c || !(await this.canSee(v, c))) throw hidden(id);
    return c;
  }

  /** The conversation, if the viewer may write in it: NOT_FOUND as `conversation`, INVALID_INPUT for a channel they have not joined. */
  async writable(v: Viewer, id: string): Promise<Conversation> {
    const c = await this.conversation(v, id);
    if (c.kind === 'channel') {
      const ch = await this.channel(v, c.id);
      if (!ch.member) throw invalidInput(`Join #${ch.name} to post in it.`);
    }
    return c;
  }

  /** The channel behind a conversation id, if the viewer may see it; NOT_FOUND otherwise. */
  async channel(v: Viewer, id: string): Promise<Channel & { member: boolean }> {
    const ch = await this.store.chat.channel(v.workspace.id, id);
    if (!ch) throw hidden(id);
    const member = await this.isMember(v, ch);
    if (ch.restricted && !member) throw hidden(id);
    return { ...ch, member };
  }

  /** Marks a conversation read up to now, with the deliveries to the viewer in it. */
  async markRead(v: Viewer, conversationId: string) {
    const now = this.clock.now();
    await this.store.chat.markRead(conversationId, v.person.id, now);
    await this.store.chat.markDeliveriesRead(v.agent.id, v.workspace.id, now, conversationId);
  }
}
