import { systemClock, type Clock, type InboundEventRepo, type Store } from '../../core/ports.ts';
import { DrizzleAgentRepo } from './agent-repo.ts';
import { DrizzleApprovalRepo } from './approval-repo.ts';
import { DrizzleAudienceRepo } from './audience-repo.ts';
import { DrizzleAuditRepo } from './audit-repo.ts';
import { DrizzleBridgeRepo } from './bridge-repo.ts';
import { DrizzleChatRepo } from './chat-repo.ts';
import type { Db } from './client.ts';
import { DrizzleDocumentRepo } from './document-repo.ts';
import { translatingErrors } from './errors.ts';
import { DrizzleExternalIdentityRepo } from './identity-repo.ts';
import { DrizzleInboundEventRepo } from './inbound-repo.ts';
import { DrizzleIntakeRepo } from './intake-repo.ts';
import { DrizzleListeningRepo } from './listening-repo.ts';
import { DrizzleMessageRepo } from './message-repo.ts';
import { DrizzleOrgRepo } from './org-repo.ts';
import { DrizzleOutboxRepo } from './outbox-repo.ts';
import { DrizzlePeopleRepo } from './people-repo.ts';
import { DrizzleReactionRepo } from './reaction-repo.ts';
import { type ReadCache, withCachedReads } from './read-cache.ts';
import { processedEvents } from './schema.ts';
import { DrizzlePresenceRepo, DrizzleSessionRepo } from './session-repo.ts';
import { DrizzleSurfacePostRepo } from './surface-post-repo.ts';
import { DrizzleDefaultAgentRepo, DrizzleSurfaceTenantRepo } from './surface-repo.ts';
import { DrizzleTokenRepo } from './token-repo.ts';
import { DrizzleWorkspaceRepo } from './workspace-repo.ts';

/**
 * The Store port over drizzle; `transaction` hands `fn` the same repositories bound to one transaction.
 * Built in steps: the repositories; with `cache`, the reads `cachingReads` names kept in it; driver errors translated
 * into the one error family (`translatingErrors`).
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
  // Inside a transaction the outer store's steps apply, and reads are the transaction's own.
  if (inTransaction) return store;
  return translatingErrors(cache ? cachingReads(store, cache) : store);
}

/**
 * The reads every inbound message and tool call makes, kept in `cache` until a
 * table they read changes: the workspace, its organization and directory, the
 * calling agent (by its token's hash) and its standing, its owner (as a person
 * and as an organization member: role and seat), a channel's bridge and
 * listeners, a chat user's identity.
 */
function cachingReads(store: Store, cache: ReadCache): Store {
  return {
    ...store,
    workspaces: withCachedReads(store.workspaces, cache, 'workspaces', {
      get: ['workspaces'],
      reachablePeople: ['people', 'org_members', 'workspace_members'],
    }),
    // A member's role and seat, and a person, are read again for every 2026-07-28 request (each builds its server).
    orgs: withCachedReads(store.orgs, cache, 'orgs', { get: ['organizations'], member: ['org_members'] }),
    people: withCachedReads(store.people, cache, 'people', { get: ['people'] }),
    agents: withCachedReads(store.agents, cache, 'agents', {
      listMembers: ['agent_memberships', 'agents', 'people'],
      personAgents: ['agents', 'people'],
      standing: ['agents', 'people', 'agent_memberships', 'org_members', 'workspace_members'],
      // Every MCP request authenticates its token; a rotation or removal changes `agents`, which drops the entry.
      byTokenHash: ['agents', 'people'],
    }),
    bridges: withCachedReads(store.bridges, cache, 'bridges', { byExternal: ['bridges'] }),
    listening: withCachedReads(store.listening, cache, 'listening', {
      list: ['channel_listeners', 'agents', 'agent_memberships'],
    }),
    identities: withCachedReads(store.identities, cache, 'identities', { find: ['external_identities'] }),
  };
}
