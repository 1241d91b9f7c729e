// The tables only the Slack surface keeps: its installs (one per Slack team,
// the bot token sealed apart). Declarations only; src/infra/db/slack-repo.ts
// implements them, and src/infra/db/surface-state.ts hands the repository to
// the Slack surface's factory as its `state`.

/** A Slack team the app is installed in. The bot token is kept apart (see `sealedToken`). */
export interface SlackInstallation {
  teamId: string;
  enterpriseId: string | null;
  teamName: string;
  /** The Switchboard workspace the team maps to (from the surface tenants); null until connected. */
  workspaceId: string | null;
  botUserId: string;
  botId: string;
  appId: string | null;
  scopes: string;
  /** The Slack user who installed the app, when known. */
  installedBy: string | null;
  /** False when the install relies on SLACK_BOT_TOKEN instead of a stored token. */
  hasOwnToken: boolean;
  updatedAt: Date;
}

/** An install as stored: what Slack's OAuth (or `switchboard slack connect`) handed over, its token sealed. */
export interface SlackInstallationInput {
  teamId: string;
  enterpriseId?: string | null;
  teamName: string;
  botUserId: string;
  botId: string;
  appId?: string | null;
  scopes?: string;
  installedBy?: string | null;
  /** The sealed token; null to use SLACK_BOT_TOKEN. */
  botTokenSealed: string | null;
  /** The workspace to map to; undefined keeps the current mapping (none for a new team). */
  workspaceId?: string | null;
}

/** Slack installs in the database; the sealed bot token is read only by `sealedToken` and `latestSealedToken`. */
export interface SlackInstallationRepo {
  /** Null when the app is not installed in that team. */
  get(teamId: string): Promise<SlackInstallation | null>;
  /** The sealed bot token; null when the install uses SLACK_BOT_TOKEN or the team is unknown. */
  sealedToken(teamId: string): Promise<string | null>;
  /** The sealed bot token stored last, with its team (to check at start-up that the secret still opens them); null when none is stored. */
  latestSealedToken(): Promise<{ teamId: string; sealed: string } | null>;
  /** Inserts the installation or replaces the stored one (a re-install). */
  put(i: SlackInstallationInput): Promise<SlackInstallation>;
  /**
   * Deletes the installation (the app was uninstalled) and its workspace mapping; with `before`, only one installed
   * or last updated before then (a late uninstall leaves a reinstall alone). False when a newer one stays.
   */
  remove(teamId: string, before?: Date): Promise<boolean>;
  /** The teams connected to a workspace, oldest first. */
  teamsOf(workspaceId: string): Promise<string[]>;
}

/** The repositories of the Slack surface's own tables, as its factory receives them (`SurfaceInputs.state`). */
export interface SlackState {
  installations: SlackInstallationRepo;
}
