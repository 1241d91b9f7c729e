import type { Actor } from '../actor.ts';
import { conflict, invalidInput, notFound, notPermitted, SwitchboardError } from '../errors.ts';
import { assertMayGrantMonitor, assertMayManageAgent, workspaceRole } from '../organizations/access.ts';
import type { OrgService } from '../organizations/org-service.ts';
import { assertAgentAllowed, planLimits } from '../organizations/plans.ts';
import type { AuditEntry, Notifier, Store } from '../ports.ts';
import {
  PERSON_AGENT_PERMISSIONS,
  qualifiedName,
  type Agent,
  type AgentPermissions,
  type Workspace,
  type WorkspaceRole,
} from '../entities.ts';
import { hashSecret, newAgentToken } from './tokens.ts';

const NAME = /^[a-z0-9][a-z0-9_.-]{0,38}$/;

/** An agent as a workspace sees it: its permissions there, and for a person agent the person's role. */
export interface WorkspaceAgent {
  agent: Agent;
  permissions: AgentPermissions;
  /** The owner's role in the workspace (person agents act with it). */
  ownerRole: WorkspaceRole;
}

/** Published when an agent's token is rotated, so calls waiting with the old token end at once (in every process). */
export const tokenTopic = (agentId: string) => `agent-token:${agentId}`;

/**
 * Why an agent's token may not be rotated by hand, or null when it may: an
 * agent the server runs itself (the demo agent) holds a token only it knows,
 * and a rotation would cut it off.
 */
export type HeldTokenRule = (qualifiedName: string) => string | null;

/** How often an agent's use of its token is recorded as its presence (the agents page shows it to the minute). */
const PRESENCE_EVERY_MS = 10_000;

/** Agents, their tokens and memberships, and who is in a workspace. */
export class AgentService {
  /** When this process last recorded each agent's presence. */
  private readonly touched = new Map<string, number>();
  constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    private readonly notifier: Notifier | null = null,
    private readonly heldToken: HeldTokenRule = () => null,
  ) {}

  /** Why this agent's token may not be rotated by hand (see HeldTokenRule), or null. */
  tokenHeldBy(agent: Pick<Agent, 'name' | 'ownerHandle'>): string | null {
    return this.heldToken(qualifiedName(agent));
  }

  /** The agent (or person agent) by id; null when there is none. */
  get(id: string): Promise<Agent | null> {
    return this.store.agents.get(id);
  }

  /** Every agent the person owns, their person agent included. */
  ownedBy(personId: string): Promise<Agent[]> {
    return this.store.agents.listOwnedBy(personId);
  }

  /** Whether the agent joined the workspace (whatever its owner's standing there now). */
  async isMember(agentId: string, workspaceId: string): Promise<boolean> {
    return Boolean(await this.store.agents.membership(agentId, workspaceId));
  }

  /** When each agent last used its token; agents never seen are absent. */
  lastSeen(agentIds: string[]): Promise<Map<string, Date>> {
    return this.store.presence.lastSeen(agentIds);
  }

  async byName(qualified: string): Promise<Agent> {
    const [owner, name] = qualified.split('/');
    const agent = name ? await this.store.agents.byQualifiedName(owner, name) : null;
    if (!agent) throw notFound(`The agent "${qualified}"`, 'Name it as OWNER/NAME, e.g. alice/builder.');
    return agent;
  }

  private async mayManage(actor: Actor, agent: Agent) {
    if (actor.kind === 'system' || actor.personId === agent.ownerId) return;
    // An admin of a shared organization the owner belongs to may manage the owner's agents.
    const ownerOrgs = (await this.store.orgs.listForPerson(agent.ownerId)).filter((o) => o.personalFor === null);
    const roles = await Promise.all(ownerOrgs.map((o) => this.store.orgs.member(o.id, actor.personId)));
    assertMayManageAgent(
      actor.personId,
      agent,
      roles.some((m) => m?.role === 'admin'),
    );
  }

  /** Creates an agent and returns its token, which is never shown again. */
  async add(
    actor: Actor,
    input: { name: string; owner: string; displayName?: string; avatarUrl?: string | null; roleLine?: string },
  ) {
    if (!NAME.test(input.name)) {
      throw invalidInput(
        `"${input.name}" is not a valid agent name: use 1–39 lowercase letters, digits, dots, dashes or underscores.`,
      );
    }
    if (input.avatarUrl && !/^https?:\/\//.test(input.avatarUrl))
      throw invalidInput('The avatar URL must start with http:// or https://.');
    const owner = await this.orgs.person(input.owner);
    if (actor.kind === 'person' && actor.personId !== owner.id)
      throw notPermitted('You can add agents only for yourself.');
    return this.store.transaction(async (tx) => {
      // A taken name is the more useful answer than a plan limit, so it is checked first.
      const taken = await tx.agents.byQualifiedName(owner.handle, input.name);
      if (taken?.kind === 'person')
        throw conflict(`"${input.name}" is ${owner.handle}'s own person agent; choose another name.`);
      if (taken)
        throw conflict(`This owner already has an agent named "${input.name}"; agent names are unique per owner.`);
      const listed = (await tx.orgs.listForPerson(owner.id)).find((o) => o.personalFor === owner.id);
      // Concurrent creations would each count the same total; the lock makes them take turns.
      const home = listed && (await tx.orgs.lockForLimits(listed.id));
      if (home) assertAgentAllowed(planLimits(home.plan, home.licensedMessages), await tx.orgs.countAgents(home.id));
      const token = newAgentToken();
      const agent = await tx.agents.create({
        ownerId: owner.id,
        name: input.name,
        displayName: input.displayName ?? input.name,
        avatarUrl: input.avatarUrl ?? null,
        roleLine: input.roleLine ?? '',
        kind: 'agent',
        tokenHash: hashSecret(token),
      });
      return { agent, token };
    });
  }

  /** Replaces the token; the old one stops working at once. */
  async rotateToken(actor: Actor, qualified: string) {
    const agent = await this.byName(qualified);
    if (agent.kind === 'person')
      throw invalidInput("Person agents have no token; they act through the person's own sign-in.");
    await this.mayManage(actor, agent);
    const held = this.tokenHeldBy(agent);
    if (held) throw notPermitted(held);
    return this.replaceToken(agent);
  }

  /** A new token for an agent the calling process runs itself and holds the token of (the demo agent at start-up). */
  async renewHeldToken(qualified: string) {
    return this.replaceToken(await this.byName(qualified));
  }

  private async replaceToken(agent: Agent) {
    const token = newAgentToken();
    await this.store.agents.setTokenHash(agent.id, hashSecret(token));
    await this.notifier?.publish(tokenTopic(agent.id), 'rotated');
    return { agent, token };
  }

  /** Agents, optionally only one owner's, with whether each still holds a token. */
  async list(owner?: string): Promise<Agent[]> {
    if (owner) return this.store.agents.listOwnedBy((await this.orgs.person(owner)).id);
    return this.store.agents.listAll();
  }

  /**
   * Retires an agent: its token stops working at once and it leaves every
   * workspace, so it no longer counts against a plan, and stops listening to
   * their channels. Its messages stay in history under its name, which
   * therefore stays taken.
   */
  async remove(actor: Actor, qualified: string) {
    const agent = await this.byName(qualified);
    if (agent.kind === 'person')
      throw invalidInput(
        `${qualified} is a person agent; it goes only with its person (\`switchboard person remove\`).`,
      );
    await this.mayManage(actor, agent);
    await this.store.transaction(async (tx) => {
      await tx.agents.setTokenHash(agent.id, null);
      await tx.agents.removeMemberships([agent.id], null);
      await tx.listening.removeAgents([agent.id], null);
    });
    return agent;
  }

  /** The agent holding this token; null when the token is unknown or was rotated away. */
  async authenticate(token: string): Promise<Agent | null> {
    if (!token.startsWith('sb_')) return null;
    const agent = await this.store.agents.byTokenHash(hashSecret(token));
    // Every use of a token counts as a sign of life (the web agents page shows who is connected); it is
    // written once per PRESENCE_EVERY_MS per agent, not on every tool call.
    const now = Date.now();
    if (agent && now - (this.touched.get(agent.id) ?? -Infinity) >= PRESENCE_EVERY_MS) {
      await this.store.presence.touch(agent.id, new Date(now));
      this.touched.set(agent.id, now);
    }
    return agent;
  }

  /** Puts an agent in a workspace with the given permissions (replacing earlier ones). */
  async join(
    actor: Actor,
    input: {
      agent: string;
      workspace: string;
      send?: boolean;
      receive?: boolean;
      canMessage?: string[];
      takesFrom?: string[];
      monitor?: boolean;
    },
  ) {
    const agent = await this.byName(input.agent);
    if (agent.kind === 'person')
      throw invalidInput('Person agents are in every workspace their person can reach; they cannot be joined by hand.');
    await this.mayManage(actor, agent);
    const ws = await this.orgs.workspace(input.workspace);
    const ownerRole = await this.orgs.roleIn(agent.ownerId, ws);
    if (!ownerRole) {
      throw notPermitted(
        `@${agent.ownerHandle} cannot reach the workspace "${ws.slug}", so their agent cannot join it; add them to the workspace first.`,
      );
    }
    if (input.monitor) {
      const actorRole = actor.kind === 'system' ? 'owner' : await this.orgs.roleIn(actor.personId, ws);
      assertMayGrantMonitor(actorRole);
    }
    return this.store.transaction(async (tx) => {
      const existing = await tx.agents.membership(agent.id, ws.id);
      if (!existing) {
        const org = await tx.orgs.lockForLimits(ws.orgId);
        const alreadyCounted = org!.personalFor === agent.ownerId;
        if (!alreadyCounted)
          assertAgentAllowed(planLimits(org!.plan, org!.licensedMessages), await tx.orgs.countAgents(org!.id));
      }
      const directory = await new AgentService(tx, this.orgs).directory(ws);
      const resolve = (names: string[] = []) =>
        names.map((n) => {
          try {
            return resolveOne(directory, n).agent.id;
          } catch (e) {
            // resolveOne's hint names an MCP tool; whoever joins agents (the CLI) is told its own way out.
            if (!(e instanceof SwitchboardError) || e.code !== 'NOT_FOUND') throw e;
            throw e.withHint(
              `Only agents already in ${ws.slug} and people who can reach it can be named: put that agent in first with \`switchboard agent join ${n.includes('/') ? n.trim() : 'OWNER/NAME'} ${ws.slug}\` (\`switchboard agent list\` shows every agent's name).`,
            );
          }
        });
      const membership = {
        agentId: agent.id,
        workspaceId: ws.id,
        send: input.send ?? true,
        receive: input.receive ?? true,
        canMessage: resolve(input.canMessage),
        takesMessagesFrom: resolve(input.takesFrom),
        monitor: Boolean(input.monitor),
      };
      await tx.agents.putMembership(membership);
      return { agent, workspace: ws, membership };
    });
  }

  /** Everyone who can be messaged in a workspace: joined agents whose owner still reaches it, and person agents. */
  async directory(ws: Workspace): Promise<WorkspaceAgent[]> {
    const [members, people] = await Promise.all([
      this.store.agents.listMembers(ws.id),
      this.store.workspaces.reachablePeople(ws),
    ]);
    const roles = new Map(people.map((p) => [p.person.id, p.role]));
    const out: WorkspaceAgent[] = [];
    for (const m of members) {
      const ownerRole = roles.get(m.agent.ownerId);
      if (ownerRole && m.agent.hasToken) out.push({ agent: m.agent, permissions: m.membership, ownerRole });
    }
    // One query for every person agent (not one per person: a workspace may reach thousands of people).
    const byOwner = new Map(
      (await this.store.agents.personAgents(people.map((p) => p.person.id))).map((a) => [a.ownerId, a]),
    );
    for (const p of people) {
      const agent = byOwner.get(p.person.id);
      if (agent) out.push({ agent, permissions: PERSON_AGENT_PERMISSIONS, ownerRole: p.role });
    }
    return out;
  }

  /** The caller's own entry in the workspace directory; NOT_PERMITTED when it is not a member. */
  async member(agent: Agent, ws: Workspace): Promise<WorkspaceAgent> {
    // The same answer as looking the agent up in `directory(ws)`, in one query instead of
    // listing the whole workspace (this runs on every MCP tool call).
    const standing = await this.store.agents.standing(agent.id, ws.id, ws.orgId);
    const current = standing?.agent ?? null;
    const membership = agent.kind === 'agent' ? (standing?.membership ?? null) : null;
    const ownerRole = standing ? workspaceRole(ws, standing.orgRole, standing.directRole) : null;
    let entry: WorkspaceAgent | null = null;
    if (current && ownerRole && current.kind === 'person')
      entry = { agent: current, permissions: PERSON_AGENT_PERMISSIONS, ownerRole };
    if (current && ownerRole && current.kind === 'agent' && current.hasToken && membership)
      entry = { agent: current, permissions: membership, ownerRole };
    if (!entry) {
      throw notPermitted(
        `${qualifiedName(agent)} is not a member of the workspace "${ws.slug}"; ask its owner to run \`switchboard agent join ${qualifiedName(agent)} ${ws.slug}\`.`,
      );
    }
    return entry;
  }

  /** Adds an entry to the audit trail of what agents did (a tool call, done or refused). */
  recordAudit(entry: AuditEntry): Promise<void> {
    return this.store.audit.record(entry);
  }
}

/**
 * Resolves `name` or `owner/name` in a directory. A bare name that several
 * owners use is refused with the candidates, so nothing goes to the wrong agent.
 */
export function resolveOne(directory: WorkspaceAgent[], raw: string): WorkspaceAgent {
  const name = raw.trim().replace(/^@/, '').toLowerCase();
  const [owner, agentName] = name.includes('/') ? name.split('/', 2) : [null, name];
  const found = directory.filter(
    (d) => d.agent.name === agentName && (owner === null || d.agent.ownerHandle === owner),
  );
  if (found.length === 1) return found[0];
  if (found.length > 1) {
    const names = found.map((d) => qualifiedName(d.agent)).join(', ');
    throw invalidInput(`"${raw}" is ambiguous in this workspace: it could be ${names}. Use the owner/name form.`, {
      candidates: found.map((d) => qualifiedName(d.agent)),
    });
  }
  const close = closestNames(
    directory.map((d) => (d.agent.kind === 'person' ? d.agent.name : qualifiedName(d.agent))),
    agentName,
  );
  if (close.length)
    throw new SwitchboardError(
      'NOT_FOUND',
      `There is no agent or person "${raw}" in this workspace; did you mean ${close.join(', ')}?`,
      { suggestions: close },
    );
  throw new SwitchboardError(
    'NOT_FOUND',
    `There is no agent or person "${raw}" in this workspace.`,
    { suggestions: close },
    'Call list_agents to see who is here.',
  );
}

/** Up to three names nearest to `wanted` by edit distance (for "did you mean"). */
function closestNames(names: string[], wanted: string): string[] {
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) {
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
    return d[a.length][b.length];
  };
  return names
    .map((n) => ({ n, d: dist(n.split('/').pop()!, wanted) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(wanted.length / 2)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((x) => x.n);
}
