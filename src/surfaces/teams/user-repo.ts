// The Teams users the bot has seen: state only the Teams surface keeps,
// implemented in src/infra/db/teams-repo.ts and handed to the surface's
// factory as its state (src/infra/db/surface-state.ts).

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
