// The tables only one chat surface keeps (Slack installations, Teams users and
// conversation references, email threads' mails), each handed to its own surface alone as the
// `state` of its factory (src/surfaces/contract.ts). A surface with tables of
// its own adds its repository here, under the surface's name.
import type { Db } from './client.ts';
import { DrizzleEmailMailRepo } from './email-repo.ts';
import { DrizzleSlackInstallationRepo } from './slack-repo.ts';
import { DrizzleTeamsReferenceRepo, DrizzleTeamsUserRepo } from './teams-repo.ts';

export function surfaceState(db: Db): Record<string, unknown> {
  return {
    slack: { installations: new DrizzleSlackInstallationRepo(db) },
    teams: { users: new DrizzleTeamsUserRepo(db), references: new DrizzleTeamsReferenceRepo(db) },
    email: { mails: new DrizzleEmailMailRepo(db) },
  };
}
