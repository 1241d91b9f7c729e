// The tables only Teams keeps, handed to its factory as its state
// (src/infra/db/surface-state.ts builds them; src/infra/db/teams-repo.ts implements them).
import type { TeamsReferenceRepo } from './reference-repo.ts';
import type { TeamsUserRepo } from './user-repo.ts';

export interface TeamsState {
  /** The Teams users the bot has seen. */
  users: TeamsUserRepo;
  /** The last conversation reference of each conversation, for proactive posts. */
  references: TeamsReferenceRepo;
}
