import { isHandle, isSlug, slugify, type Actor } from '../actor.ts';
import { hashSecret, newNonce } from '../agents/tokens.ts';
import { conflict, invalidInput, notFound, notPermitted } from '../errors.ts';
import type { Clock, Store } from '../ports.ts';
import type { Organization, OrgRole, Person, Workspace, WorkspaceKind, WorkspaceRole } from '../entities.ts';
import { assertOrgAdmin, workspaceRole } from './access.ts';
import { assertWorkspaceAllowed, planLimits, type PlanName } from './plans.ts';

const SIGNIN_TTL_MS = 24 * 3600_000;
export const GUEST_HANDLE = 'guest';
export const SYSTEM_HANDLE = 'switchboard';
const RESERVED_HANDLES = new Set([GUEST_HANDLE, SYSTEM_HANDLE, 'admin', 'system']);

function assertUsableHandle(handle: string) {
  if (RESERVED_HANDLES.has(handle))
    throw invalidInput(`"${handle}" is reserved by Switchboard; choose another handle.`);
  if (!isHandle(handle)) {
    throw invalidInput(
      `"${handle}" is not a valid handle: use 1–39 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit.`,
    );
  }
}

export interface AddPersonInput {
  handle: string;
  displayName?: string;
  email?: string | null;
  org?: string;
  role?: OrgRole;
}

/** What `OrgService.putPerson` did. */
export interface PersonPut {
  person: Person;
  /** False when the handle belonged to someone already (their name and e-mail are left as they were). */
  created: boolean;
  org: Organization | null;
  /** Their role in `org` before; null when they were not in it. */
  previousRole: OrgRole | null;
  /** Their role in `org` now; null without `org`. */
  role: OrgRole | null;
  /** Whether an existing person has set a password (always false for a new one). */
  hasPassword: boolean;
  signin: { path: string; expiresAt: Date } | null;
}

/** Organizations, people, workspaces, memberships, seats and plans. */
export class OrgService {
  private readonly removalListeners: Array<(org: Organization, person: Person) => Promise<void> | void> = [];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Calls `fn` after a person was taken out of an organization (their open web chats check their access at once). */
  onPersonRemoved(fn: (org: Organization, person: Person) => Promise<void> | void): void {
    this.removalListeners.push(fn);
  }

  async org(idOrSlug: string): Promise<Organization> {
    const org = await this.store.orgs.get(idOrSlug);
    if (!org)
      throw notFound(`The organization "${idOrSlug}"`, 'Check the name with `switchboard init` or the web app.');
    return org;
  }

  async person(idOrHandle: string): Promise<Person> {
    const p = await this.store.people.get(idOrHandle);
    if (!p) throw notFound(`The person "${idOrHandle}"`, 'Add them first with `switchboard person add`.');
    return p;
  }

  /** The person by id or handle; null when there is none. */
  findPerson(idOrHandle: string): Promise<Person | null> {
    return this.store.people.get(idOrHandle);
  }

  /** Whether the person set a password (and may sign in with it, not only with a one-time link). */
  async hasPassword(personId: string): Promise<boolean> {
    return Boolean(await this.store.people.passwordHash(personId));
  }

  /** The workspaces the person can reach, with their role in each. */
  workspacesOf(personId: string): Promise<Array<Workspace & { role: WorkspaceRole }>> {
    return this.store.workspaces.listForPerson(personId);
  }

  async workspace(idOrSlug: string): Promise<Workspace> {
    const ws = await this.findWorkspace(idOrSlug);
    if (!ws) throw notFound(`The workspace "${idOrSlug}"`, 'Create it with `switchboard workspace add`.');
    return ws;
  }

  /** The workspace with this id (or slug); null when there is none (removed since a team or tenant was connected to it, say). */
  findWorkspace(idOrSlug: string): Promise<Workspace | null> {
    return this.store.workspaces.get(idOrSlug);
  }

  /** The organization role of the actor; the CLI operator counts as an admin everywhere. */
  async orgRoleOf(actor: Actor, orgId: string): Promise<OrgRole | null> {
    if (actor.kind === 'system') return 'admin';
    return (await this.store.orgs.member(orgId, actor.personId))?.role ?? null;
  }

  /** A person's effective role in a workspace, or null when they cannot reach it. */
  async roleIn(personId: string, ws: Workspace): Promise<WorkspaceRole | null> {
    const [m, direct] = await Promise.all([
      this.store.orgs.member(ws.orgId, personId),
      this.store.workspaces.directRole(ws.id, personId),
    ]);
    return workspaceRole(ws, m?.role ?? null, direct);
  }

  /** Creates the first organization and its admin; returns a one-time sign-in URL path. */
  async init(input: { org: string; admin: string; displayName?: string; email?: string | null }) {
    return this.store.transaction(async (tx) => {
      const svc = new OrgService(tx, this.clock);
      const admin = await svc.createPerson({ handle: input.admin, displayName: input.displayName, email: input.email });
      const org = await svc.createOrg(input.org);
      await tx.orgs.addMember(org.id, admin.id, 'admin');
      const signin = await svc.issueSignin(admin.id);
      return { org, admin, signin };
    });
  }

  async createOrg(name: string, plan: PlanName = 'free'): Promise<Organization> {
    const slug = slugify(name);
    if (!isSlug(slug))
      throw invalidInput(`"${name}" does not make a usable organization name; use letters, digits and dashes.`);
    return this.store.orgs.create({ name, slug, plan });
  }

  /**
   * A person in `org` (when given) with `role` (default member): created with their own Free organization and
   * person agent when the handle is new, otherwise the existing person. Throws CONFLICT for a taken handle
   * when there is nothing else to do (no `org`).
   */
  async addPerson(actor: Actor, input: AddPersonInput): Promise<Person> {
    return (await this.putPerson(actor, input)).person;
  }

  /**
   * Like `addPerson`, saying what happened: an existing person joins `org`, or gets `role` there when they
   * are in it already (the last admin cannot be made a member). `invite` issues a one-time sign-in link,
   * for an existing person too (it is how an operator gives someone a new link).
   */
  async putPerson(actor: Actor, input: AddPersonInput & { invite?: boolean }): Promise<PersonPut> {
    assertUsableHandle(input.handle);
    return this.store.transaction(async (tx) => {
      const svc = new OrgService(tx, this.clock);
      const named = input.org ? await svc.org(input.org) : null;
      // Locked before the actor's role is read: an admin demoted or removed while waiting for the lock is refused.
      const org = named && (await svc.lockAdmins(named));
      if (org) assertOrgAdmin(await svc.orgRoleOf(actor, org.id), 'add people to this organization');
      const found = await tx.people.get(input.handle);
      const existing = found?.handle === input.handle ? found : null;
      if (existing && !org && !input.invite) {
        throw conflict(
          `The handle "${input.handle}" is already taken: choose another, pass --org ORG to add @${input.handle} to an organization, or --invite for a new sign-in link.`,
        );
      }
      const person = existing ?? (await svc.createPerson(input));
      let previousRole: OrgRole | null = null;
      if (org) previousRole = existing ? ((await tx.orgs.member(org.id, person.id))?.role ?? null) : null;
      // A member keeps their role unless one is given (asking for a new sign-in link must not demote an admin).
      const role = input.role ?? previousRole ?? 'member';
      if (org) {
        if (!previousRole) await tx.orgs.addMember(org.id, person.id, role);
        else if (previousRole !== role) {
          if (previousRole === 'admin') await svc.assertNotLastAdmin(org, person);
          await tx.orgs.setRole(org.id, person.id, role);
        }
      }
      const hasPassword = existing ? Boolean(await tx.people.passwordHash(person.id)) : false;
      const signin = input.invite ? await svc.issueSignin(person.id) : null;
      return { person, created: !existing, org, previousRole, role: org ? role : null, hasPassword, signin };
    });
  }

  /** Creates a person with their own Free organization (as its admin) and their person agent; CONFLICT when the handle is taken. */
  private async createPerson(input: { handle: string; displayName?: string; email?: string | null }): Promise<Person> {
    assertUsableHandle(input.handle);
    const person = await this.store.people.create({
      handle: input.handle,
      displayName: input.displayName ?? input.handle,
      email: input.email ?? null,
    });
    const own = await this.store.orgs.create({
      name: `${person.handle}'s organization`,
      slug: `~${person.handle}`,
      plan: 'free',
      personalFor: person.id,
    });
    await this.store.orgs.addMember(own.id, person.id, 'admin');
    await this.store.agents.create({
      ownerId: person.id,
      name: person.handle,
      displayName: person.displayName,
      kind: 'person',
    });
    return person;
  }

  /**
   * Locks the organization until the transaction ends, before its roles are read (the actor's included): otherwise two
   * admins demoted or removed at once could each see the other still an admin and leave none, or one just demoted act on.
   */
  private async lockAdmins(o: Organization): Promise<Organization> {
    return (await this.store.orgs.lockForLimits(o.id)) ?? o;
  }

  /** Refuses to take the admin role from (or remove) the organization's only admin; call `lockAdmins` first. */
  private async assertNotLastAdmin(o: Organization, person: Person) {
    const members = await this.store.orgs.listMembers(o.id);
    if (!members.some((m) => m.role === 'admin' && m.person.id !== person.id)) {
      throw invalidInput(
        `@${person.handle} is the last admin of ${o.name}; make someone else an admin first (\`switchboard person add HANDLE --org ${o.slug} --role admin\`).`,
      );
    }
  }

  async addWorkspace(
    actor: Actor,
    input: { name: string; org: string; simplified?: boolean; restricted?: boolean; slug?: string },
  ): Promise<Workspace> {
    const slug = input.slug ?? slugify(input.name);
    if (!isSlug(slug))
      throw invalidInput(`"${input.name}" does not make a usable workspace name; use letters, digits and dashes.`);
    return this.store.transaction(async (tx) => {
      const svc = new OrgService(tx, this.clock);
      const found = await svc.org(input.org);
      assertOrgAdmin(await svc.orgRoleOf(actor, found.id), 'create workspaces');
      // Concurrent creations would each count the same total; the lock makes them take turns.
      const org = (await tx.orgs.lockForLimits(found.id)) ?? found;
      assertWorkspaceAllowed(planLimits(org.plan, org.licensedMessages), await tx.orgs.countWorkspaces(org.id));
      const kind: WorkspaceKind = input.simplified ? 'simplified' : 'structured';
      return tx.workspaces.create({
        orgId: org.id,
        name: input.name,
        slug,
        restricted: Boolean(input.restricted),
        kind,
      });
    });
  }

  async addWorkspaceMember(actor: Actor, workspace: string, handle: string, role: WorkspaceRole) {
    const ws = await this.workspace(workspace);
    const person = await this.person(handle);
    if (actor.kind === 'person' && (await this.roleIn(actor.personId, ws)) !== 'owner') {
      throw notPermitted('Only a workspace owner or an organization admin can add people to this workspace.');
    }
    await this.store.workspaces.setMember(ws.id, person.id, role);
    return { workspace: ws, person, role };
  }

  /** Whether the person holds a seat in the organization (writing documents needs one); false when not a member. */
  async hasSeat(orgId: string, personId: string): Promise<boolean> {
    return Boolean((await this.store.orgs.member(orgId, personId))?.hasSeat);
  }

  async setSeat(actor: Actor, org: string, handle: string, hasSeat: boolean) {
    const o = await this.org(org);
    assertOrgAdmin(await this.orgRoleOf(actor, o.id), hasSeat ? 'assign seats' : 'revoke seats');
    const person = await this.person(handle);
    if (!(await this.store.orgs.member(o.id, person.id))) {
      throw invalidInput(
        `@${handle} is not a member of ${o.name}; add them with \`switchboard person add ${handle} --org ${o.slug}\` first.`,
      );
    }
    await this.store.orgs.setSeat(o.id, person.id, hasSeat);
    return { org: o, person, hasSeat };
  }

  async setPlan(actor: Actor, org: string, plan: PlanName, licensedMessages?: number) {
    const o = await this.org(org);
    assertOrgAdmin(await this.orgRoleOf(actor, o.id), 'change the plan');
    if (plan === 'team' && !(licensedMessages && licensedMessages > 0)) {
      throw invalidInput('The Team plan needs the licensed monthly message count: pass --messages N.');
    }
    const licensed = plan === 'team' ? licensedMessages! : 0;
    await this.store.orgs.setPlan(o.id, plan, licensed);
    return { org: { ...o, plan, licensedMessages: licensed }, limits: planLimits(plan, licensed) };
  }

  /** The members of an organization with role and seat, or every person (reserved ones left out) without one. */
  async listPeople(actor: Actor, org?: string) {
    if (!org) {
      if (actor.kind !== 'system')
        throw notPermitted('Only the operator can list everyone; name an organization you administer.');
      return (await this.store.people.list())
        .filter((p) => !RESERVED_HANDLES.has(p.handle))
        .map((person) => ({ person, role: null, hasSeat: false }));
    }
    const o = await this.org(org);
    assertOrgAdmin(await this.orgRoleOf(actor, o.id), 'list the people of this organization');
    return this.store.orgs.listMembers(o.id);
  }

  /**
   * Takes a person out of an organization: their role, their direct roles in
   * its workspaces, and their agents' places there. Their account, their own
   * organization and what they wrote stay, and so do their sign-in sessions
   * (other organizations may be theirs too). The last admin cannot be removed.
   * `onPersonRemoved` listeners run once it committed.
   */
  async removePerson(actor: Actor, org: string, handle: string) {
    const removed = await this.store.transaction(async (tx) => {
      const svc = new OrgService(tx, this.clock);
      const named = await svc.org(org);
      const o = await svc.lockAdmins(named);
      assertOrgAdmin(await svc.orgRoleOf(actor, o.id), 'remove people from this organization');
      const person = await svc.person(handle);
      if (o.personalFor === person.id)
        throw invalidInput(`${o.name} is @${handle}'s own organization; they cannot be removed from it.`);
      const member = await tx.orgs.member(o.id, person.id);
      if (!member)
        throw notFound(`@${handle} in ${o.name}`, `\`switchboard person list --org ${o.slug}\` shows who is in it.`);
      if (member.role === 'admin') await svc.assertNotLastAdmin(o, person);
      const workspaceIds = (await tx.workspaces.list(o.id)).map((w) => w.id);
      const agentIds = (await tx.agents.listOwnedBy(person.id)).map((a) => a.id);
      await tx.workspaces.removeMember(workspaceIds, person.id);
      await tx.agents.removeMemberships(agentIds, workspaceIds);
      await tx.listening.removeAgents(agentIds, workspaceIds);
      await tx.orgs.removeMember(o.id, person.id);
      return { org: o, person, agentsRemoved: agentIds.length };
    });
    await Promise.all(this.removalListeners.map((fn) => fn(removed.org, removed.person)));
    return removed;
  }

  /** The workspaces of an organization, or of all of them (operator only). */
  async listWorkspaces(actor: Actor, org?: string) {
    if (!org) {
      if (actor.kind !== 'system')
        throw notPermitted('Only the operator can list every workspace; name an organization you administer.');
      return this.store.workspaces.list(null);
    }
    const o = await this.org(org);
    assertOrgAdmin(await this.orgRoleOf(actor, o.id), 'list the workspaces of this organization');
    return this.store.workspaces.list(o.id);
  }

  /** Deletes a workspace and everything in it, for good; `confirmed` says the caller was told so. */
  async removeWorkspace(actor: Actor, workspace: string, confirmed: boolean) {
    const ws = await this.workspace(workspace);
    assertOrgAdmin(await this.orgRoleOf(actor, ws.orgId), 'remove workspaces');
    if (!confirmed) {
      throw invalidInput(
        `Removing ${ws.slug} deletes its conversations, messages, documents and approvals for good, and disconnects the chat apps connected to it; run it again with --yes to go ahead.`,
      );
    }
    await this.store.workspaces.delete(ws.id);
    return ws;
  }

  /**
   * The guest agent: the sender of messages from chat users who have not linked
   * an account. It belongs to the reserved person @guest, who has no access to anything.
   */
  guestAgent() {
    return this.reservedAgent(GUEST_HANDLE, 'Guest');
  }

  /** The sender of Switchboard's own notices (approval outcomes, delivery failures). */
  systemAgent() {
    return this.reservedAgent(SYSTEM_HANDLE, 'Switchboard');
  }

  private async reservedAgent(handle: string, displayName: string) {
    const existing = await this.store.people.get(handle);
    const found = existing && (await this.store.agents.personAgent(existing.id));
    if (found) return found;
    try {
      return await this.store.transaction(async (tx) => {
        const person = existing ?? (await tx.people.create({ handle, displayName }));
        return tx.agents.create({ ownerId: person.id, name: handle, displayName, kind: 'person' });
      });
    } catch (e) {
      // Another request created it at the same moment.
      const again = await this.store.people.get(handle);
      const agent = again && (await this.store.agents.personAgent(again.id));
      if (agent) return agent;
      throw e;
    }
  }

  /** A one-time sign-in link for a person (the path; the caller adds PUBLIC_URL). */
  async issueSignin(personId: string, ttlMs = SIGNIN_TTL_MS) {
    const nonce = newNonce();
    const expiresAt = new Date(this.clock.now().getTime() + ttlMs);
    await this.store.tokens.create({ purpose: 'signin', tokenHash: hashSecret(nonce), personId, expiresAt });
    return { path: `/signin?token=${nonce}`, expiresAt };
  }
}
