import { systemClock, type Clock, type InboundEventRepo, type Store } from '../../core/ports.ts';
import { DrizzleAgentRepo } from './agent-repo.ts';
import { DrizzleApprovalRepo } from './approval-repo.ts';
import { DrizzleAudienceRepo } from './audience-repo.ts';
import { DrizzleAuditRepo } from './audit-repo.ts';
import { DrizzleBridgeRepo } from './bridge-repo.ts';
import { DrizzleChatRepo } from './chat-repo.ts';
import type { Db } from './client.ts';
import { DrizzleDocumentRepo } from './document-repo.ts';
import { translateDriverError } from './errors.ts';
import { DrizzleExternalIdentityRepo } from './identity-repo.ts';
import { DrizzleInboundEventRepo } from './inbound-repo.ts';
import { DrizzleIntakeRepo } from './intake-repo.ts';
import { DrizzleListeningRepo } from './listening-repo.ts';
import { DrizzleMessageRepo } from './message-repo.ts';
import { DrizzleOrgRepo } from './org-repo.ts';
import { DrizzleOutboxRepo } from './outbox-repo.ts';
import { DrizzlePeopleRepo } from './people-repo.ts';
import { DrizzleReactionRepo } from './reaction-repo.ts';
import type { ReadCache } from './read-cache.ts';
import type { WatchedTable } from './table-changes.ts';
import { processedEvents } from './schema.ts';
import { DrizzlePresenceRepo, DrizzleSessionRepo } from './session-repo.ts';
import { DrizzleSurfacePostRepo } from './surface-post-repo.ts';
import { DrizzleDefaultAgentRepo, DrizzleSurfaceTenantRepo } from './surface-repo.ts';
import { DrizzleTeamsReferenceRepo, DrizzleTeamsUserRepo } from './teams-repo.ts';
import { DrizzleTokenRepo } from './token-repo.ts';
import { DrizzleWorkspaceRepo } from './workspace-repo.ts';

/**
 * The Store port over drizzle; `transaction` hands `fn` the same repositories bound to one transaction.
 * With `cache`, the reads `cacheReads` names are kept in it (outside transactions only: a transaction reads its own).
 * `inbound` replaces the received-events repository (the embedded database's journal, see inbound-journal.ts).
 */
export function createStore(
  db: Db,
  clock: Clock = systemClock,
  inTransaction = false,
  cache?: ReadCache,
  inbound?: InboundEventRepo,
): Store {
  const store: Store = {
    orgs: new DrizzleOrgRepo(db),
    people: new DrizzlePeopleRepo(db),
    workspaces: new DrizzleWorkspaceRepo(db),
    agents: new DrizzleAgentRepo(db),
    messages: new DrizzleMessageRepo(db),
    outbox: new DrizzleOutboxRepo(db, clock),
    audit: new DrizzleAuditRepo(db),
    tokens: new DrizzleTokenRepo(db),
    approvals: new DrizzleApprovalRepo(db),
    documents: new DrizzleDocumentRepo(db),
    chat: new DrizzleChatRepo(db),
    sessions: new DrizzleSessionRepo(db),
    presence: new DrizzlePresenceRepo(db),
    identities: new DrizzleExternalIdentityRepo(db),
    tenants: new DrizzleSurfaceTenantRepo(db),
    defaultAgents: new DrizzleDefaultAgentRepo(db),
    teamsUsers: new DrizzleTeamsUserRepo(db),
    teamsReferences: new DrizzleTeamsReferenceRepo(db),
    audiences: new DrizzleAudienceRepo(db),
    inbound: inbound ?? new DrizzleInboundEventRepo(db, clock),
    posts: new DrizzleSurfacePostRepo(db),
    bridges: new DrizzleBridgeRepo(db),
    reactions: new DrizzleReactionRepo(db),
    listening: new DrizzleListeningRepo(db),
    intake: new DrizzleIntakeRepo(db),
    async firstSeen(source, eventId) {
      const rows = await db.insert(processedEvents).values({ source, eventId }).onConflictDoNothing().returning();
      return rows.length === 1;
    },
    transaction(fn) {
      // Nested calls join the outer transaction instead of opening a savepoint per call.
      if (inTransaction) return fn(this);
      return db.transaction((tx) => fn(createStore(tx as unknown as Db, clock, true)));
    },
  };
  if (inTransaction) return store;
  if (cache) cacheReads(store, cache);
  return driverErrorsTranslated(store);
}

/**
 * The reads every inbound message and tool call makes, kept in `cache` until a
 * table they read changes: the workspace, its organization and directory, the
 * calling agent (by its token's hash) and its standing, a channel's bridge and
 * listeners, a chat user's identity.
 */
function cacheReads(store: Store, cache: ReadCache) {
  const keep = <R extends object, K extends keyof R & string>(
    name: string,
    repo: R,
    method: K,
    tables: readonly WatchedTable[],
  ) => {
    const fn = repo[method] as (...args: unknown[]) => Promise<unknown>;
    Object.assign(repo, { [method]: cache.wrap(`${name}.${method}`, tables, fn.bind(repo)) });
  };
  keep('workspaces', store.workspaces, 'get', ['workspaces']);
  keep('workspaces', store.workspaces, 'reachablePeople', ['people', 'org_members', 'workspace_members']);
  keep('orgs', store.orgs, 'get', ['organizations']);
  keep('agents', store.agents, 'listMembers', ['agent_memberships', 'agents', 'people']);
  keep('agents', store.agents, 'personAgents', ['agents', 'people']);
  keep('agents', store.agents, 'standing', [
    'agents',
    'people',
    'agent_memberships',
    'org_members',
    'workspace_members',
  ]);
  // Every MCP request authenticates its token; a rotation or removal changes `agents`, which drops the entry.
  keep('agents', store.agents, 'byTokenHash', ['agents', 'people']);
  keep('bridges', store.bridges, 'byExternal', ['bridges']);
  keep('listening', store.listening, 'list', ['channel_listeners', 'agents', 'agent_memberships']);
  keep('identities', store.identities, 'find', ['external_identities']);
}

/**
 * Every repository method and `transaction`, with a lost connection turned
 * into UNAVAILABLE and a NUL character into INVALID_INPUT, so the domain and
 * every adapter see the one error family instead of a driver error. Inside a
 * transaction the outer call does it.
 */
function driverErrorsTranslated(store: Store): Store {
  const guard = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        const value = Reflect.get(t, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const out = value.apply(t, args);
          return out instanceof Promise
            ? out.catch((e: unknown) => {
                throw translateDriverError(e);
              })
            : out;
        };
      },
    });
  const wrapped = Object.fromEntries(
    Object.entries(store).map(([k, v]) => [k, typeof v === 'object' && v !== null ? guard(v) : v]),
  );
  return guard(wrapped as unknown as Store);
}
