// The Bot Framework conversation references the bot keeps for proactive posts:
// state only the Teams surface keeps, implemented in src/infra/db/teams-repo.ts
// and handed to the surface's factory as its state (src/infra/db/surface-state.ts).

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
