/** When agents last used their token. */
export interface PresenceRepo {
  touch(agentId: string, at: Date): Promise<void>;
  /** Last use per agent id; agents never seen are absent. */
  lastSeen(agentIds: string[]): Promise<Map<string, Date>>;
}
