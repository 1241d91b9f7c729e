// Storage ports for chat surfaces: who a chat user is, which workspace a team
// or tenant maps to, the agent a user or channel talks to by default (one
// shape for every surface), and what only one surface keeps (Slack installs,
// Teams users and conversation references). Implemented in src/infra/db,
// reached through the Store.

/** Chat platforms whose users Switchboard knows as external identities. */
export type ExternalSurface = string;

/** Identifies a chat user: a Slack user in a team, a Teams user (AAD object id) in a tenant. */
export interface ExternalKey {
  surface: ExternalSurface;
  tenantId: string;
  externalUserId: string;
}

/** A chat user as Switchboard knows them; `personId` is null until the account is linked. */
export interface ExternalIdentity extends ExternalKey {
  id: string;
  personId: string | null;
  displayName: string;
  email: string | null;
  avatarUrl: string | null;
  /** When the profile was last read from the platform; null when never. */
  profileFetchedAt: Date | null;
  linkedAt: Date | null;
  /** When the person was sent the link prompt (it goes once; a send that failed is forgotten); null when never. */
  linkPromptedAt: Date | null;
  createdAt: Date;
}

/** A profile as read from the platform (e.g. Slack's users.info). */
export interface ExternalProfile {
  displayName: string;
  email?: string | null;
  avatarUrl?: string | null;
  /** Further platform facts worth keeping (is_bot, is_restricted, tz…). */
  details?: Record<string, unknown>;
  fetchedAt: Date;
}

export interface ExternalIdentityRepo {
  /** Finds the identity or creates it; with a profile, records it as read at `profile.fetchedAt`. */
  upsert(key: ExternalKey, profile?: ExternalProfile): Promise<ExternalIdentity>;
  /** Null when Switchboard has never seen this chat user. */
  find(key: ExternalKey): Promise<ExternalIdentity | null>;
  /** Null when absent. */
  get(id: string): Promise<ExternalIdentity | null>;
  /** Links the identity to a person if it is not linked yet; null when it is already linked (to anyone) or absent. */
  link(id: string, personId: string, at: Date): Promise<ExternalIdentity | null>;
  /** Removes the link if the identity is linked to this person; null when it is not (or absent). */
  unlink(id: string, personId: string, at: Date): Promise<ExternalIdentity | null>;
  /** Records that the app asked this chat user to link; true only the first time (also under concurrent calls). */
  claimLinkPrompt(id: string, at: Date): Promise<boolean>;
  /** Forgets that claim (the prompt could not be sent), so the next claim succeeds again. */
  releaseLinkPrompt(id: string): Promise<void>;
  /** The identities linked to a person, oldest link first. */
  listForPerson(personId: string): Promise<ExternalIdentity[]>;
  /** The identities of these users of one tenant that Switchboard has seen; others are left out. */
  findMany(surface: ExternalSurface, tenantId: string, externalUserIds: string[]): Promise<ExternalIdentity[]>;
}

/** Whose default is it: a user's DMs with the app, or a channel's mentions that name nobody. */
export type AgentChoiceScope = 'user' | 'channel';

/** Which Switchboard workspace each chat team or tenant (a Slack team, a Teams tenant) maps to. */
export interface SurfaceTenantRepo {
  /** The workspace id the tenant maps to; null when it is not connected. */
  workspaceOf(surface: ExternalSurface, tenantId: string): Promise<string | null>;
  /** The tenants of a surface connected to a workspace. */
  tenantsOf(surface: ExternalSurface, workspaceId: string): Promise<string[]>;
  /** Maps the tenant to the workspace, replacing an earlier mapping; `null` disconnects it. */
  connect(surface: ExternalSurface, tenantId: string, workspaceId: string | null): Promise<void>;
}

/** Where a default agent applies: a user's DMs (`scope: 'user'`, `scopeId` the user) or a channel (`'channel'`, the channel id). */
export interface DefaultAgentKey {
  surface: ExternalSurface;
  tenantId: string;
  scope: AgentChoiceScope;
  scopeId: string;
}

/** The agent a person's DMs or a channel's mentions that name nobody go to, on every surface. */
export interface DefaultAgentRepo {
  /** The chosen agent id; null when none was chosen (or the agent was deleted). */
  get(key: DefaultAgentKey): Promise<string | null>;
  /** Saves the choice, or clears it with `agentId: null`; `setBy` is the platform id of who chose. */
  set(key: DefaultAgentKey, agentId: string | null, setBy: string | null): Promise<void>;
}

/** A Teams user as the bot saw them last. */
export interface TeamsUser {
  tenantId: string;
  aadObjectId: string;
  /** The Bot Framework user id (`29:…`): card refresh lists it, proactive chats address it. */
  userId: string;
  name: string;
  /** Their personal chat with the bot; null until they have one. */
  personalConversationId: string | null;
}

export interface TeamsUserRepo {
  /** Records who wrote (their `29:` id and name) and, from a personal chat, that chat (kept when null). */
  seen(u: {
    tenantId: string;
    aadObjectId: string;
    userId: string;
    name: string;
    personalConversationId?: string | null;
  }): Promise<void>;
  /** Null when the bot never saw this user. */
  get(tenantId: string, aadObjectId: string): Promise<TeamsUser | null>;
  /** The Teams users of linked people in a tenant (approvers, to refresh their cards and reach their chats); people the bot never saw are left out. */
  ofPeople(tenantId: string, personIds: string[]): Promise<Array<TeamsUser & { personId: string }>>;
}

/** The last Bot Framework conversation reference of each Teams conversation, for proactive posts. */
export interface TeamsReferenceRepo {
  /** Keeps the newest reference of a conversation (its service URL may move); `teamId`: the team of a channel's conversation. */
  put(r: {
    conversationId: string;
    tenantId: string;
    conversationType: string;
    reference: Record<string, unknown>;
    teamId?: string | null;
  }): Promise<void>;
  /** The service URL Teams used last in a tenant (to start a conversation there); null when none is known. */
  serviceUrlOf(tenantId: string): Promise<string | null>;
  /** Null when the bot never saw this conversation. */
  get(conversationId: string): Promise<Record<string, unknown> | null>;
  /**
   * Forgets the references of a conversation (a channel's reply chains with it), or of every channel the bot saw in
   * a team (the team's own id, its General channel, included); returns the conversations forgotten, reply chains folded into their channel.
   */
  forget(tenantId: string, what: { conversation: string } | { team: string }): Promise<string[]>;
}
