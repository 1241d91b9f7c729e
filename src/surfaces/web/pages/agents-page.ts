// The web chat's agents page: who is in a workspace and connected, creating
// one's own agent, rotating its token.
import type { AgentService } from '../../../core/agents/agent-service.ts';
import type { Viewer } from '../../../core/channels/access.ts';
import { notFound, notPermitted } from '../../../core/errors.ts';
import type { Clock } from '../../../core/ports.ts';
import { qualifiedName, type Agent } from '../../../core/entities.ts';
import type { AgentCard, PersonCard } from './views.ts';

/** An agent counts as connected when it used its token this recently (a `subscribe` waits under 60 s). */
export const CONNECTED_WINDOW_MS = 90_000;

export type { AgentCard, PersonCard } from './views.ts';

/** The agents page: who is in a workspace and connected, creating one's own agent, rotating tokens. */
export class AgentsPage {
  constructor(
    private readonly agents: AgentService,
    private readonly clock: Clock,
  ) {}

  async list(v: Viewer): Promise<{
    agents: AgentCard[];
    people: PersonCard[];
    elsewhere: Array<{ id: string; name: string; displayName: string }>;
  }> {
    const directory = await this.agents.directory(v.workspace);
    const bots = directory.filter((d) => d.agent.kind === 'agent');
    const [seen, owned] = await Promise.all([
      this.agents.lastSeen(bots.map((d) => d.agent.id)),
      this.agents.ownedBy(v.person.id),
    ]);
    const owners = new Map<string, string>();
    for (const d of directory) if (d.agent.kind === 'person') owners.set(d.agent.ownerId, d.agent.displayName);
    const now = this.clock.now().getTime();
    const agents = bots.map(({ agent, permissions }) => {
      const last = seen.get(agent.id) ?? null;
      return {
        ...this.card(agent, owners.get(agent.ownerId) ?? agent.ownerHandle, v),
        connected: last !== null && now - last.getTime() <= CONNECTED_WINDOW_MS,
        lastSeenAt: last,
        permissions: { send: permissions.send, receive: permissions.receive, monitor: permissions.monitor },
      };
    });
    const here = new Set(bots.map((d) => d.agent.id));
    return {
      agents,
      people: directory
        .filter((d) => d.agent.kind === 'person')
        .map((d) => ({ id: d.agent.id, handle: d.agent.name, displayName: d.agent.displayName, role: d.ownerRole })),
      elsewhere: owned
        .filter((a) => a.kind === 'agent' && a.hasToken && !here.has(a.id))
        .map((a) => ({ id: a.id, name: qualifiedName(a), displayName: a.displayName })),
    };
  }

  /** Creates an agent owned by the viewer and puts it in this workspace; the token is returned once. */
  async create(v: Viewer, input: { name: string; displayName?: string; roleLine?: string; avatarUrl?: string | null }) {
    const actor = { kind: 'person' as const, personId: v.person.id };
    const { agent, token } = await this.agents.add(actor, { ...input, owner: v.person.handle });
    await this.agents.join(actor, { agent: qualifiedName(agent), workspace: v.workspace.id });
    return { agent: { ...this.card(agent, v.person.displayName, v), connected: false, lastSeenAt: null }, token };
  }

  /** Puts one of the viewer's agents from elsewhere into this workspace. */
  async joinHere(v: Viewer, agentId: string) {
    const agent = await this.agents.get(agentId);
    if (!agent || agent.ownerId !== v.person.id) throw notFound('That agent of yours', 'Create it first.');
    await this.agents.join(
      { kind: 'person', personId: v.person.id },
      { agent: qualifiedName(agent), workspace: v.workspace.id },
    );
    return this.card(agent, v.person.displayName, v);
  }

  /**
   * A new token for one of the viewer's own agents; the old one stops working. Only the owner: the page shows the
   * new token to whoever rotates, and with it one could act as the agent in every workspace it belongs to.
   */
  async rotate(v: Viewer, agentId: string) {
    const agent = await this.agents.get(agentId);
    const inHere = agent && (agent.ownerId === v.person.id || (await this.agents.isMember(agent.id, v.workspace.id)));
    if (!agent || !inHere) throw notFound('That agent in this workspace', 'Pick it from the agents page.');
    if (agent.ownerId !== v.person.id) {
      throw notPermitted(
        `Only @${agent.ownerHandle}, its owner, can rotate ${qualifiedName(agent)}'s token here, since the new token is shown to whoever rotates it. To cut off a token that leaked, retire the agent or ask the operator (\`switchboard agent rotate-token\`).`,
      );
    }
    const { token } = await this.agents.rotateToken({ kind: 'person', personId: v.person.id }, qualifiedName(agent));
    return {
      agent: this.card(agent, agent.ownerId === v.person.id ? v.person.displayName : agent.ownerHandle, v),
      token,
    };
  }

  private card(agent: Agent, ownerName: string, v: Viewer) {
    return {
      id: agent.id,
      name: qualifiedName(agent),
      displayName: agent.displayName,
      avatarUrl: agent.avatarUrl,
      roleLine: agent.roleLine,
      owner: { handle: agent.ownerHandle, displayName: ownerName },
      mine: agent.ownerId === v.person.id,
      tokenHeld: this.agents.tokenHeldBy(agent),
      permissions: { send: true, receive: true, monitor: false },
    };
  }
}
