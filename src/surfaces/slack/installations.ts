import type { Authorize, Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { PermanentFailure } from '../../core/errors.ts';
import type { SecretBox } from '../../infra/secrets/secret-box.ts';
import type { SlackInstallation, SlackInstallationInput, SlackInstallationRepo } from './installation-repo.ts';

/** A working bot token for a team, with what Switchboard stored about the install. */
export interface SlackCredentials {
  token: string;
  installation: SlackInstallation;
}

/** Where a sealed token belongs: a token copied to another team's row does not open there. */
const sealContext = (teamId: string) => `slack-bot-token:${teamId}`;

/** Thrown when an event or job names a team Switchboard has no usable install for. */
export class NotInstalledError extends Error {
  constructor(readonly teamId: string) {
    super(
      `Switchboard is not installed in the Slack team ${teamId}: install the app through /slack/install, or run \`switchboard slack connect WORKSPACE --team-id ${teamId} --bot-token xoxb-…\`.`,
    );
    this.name = 'NotInstalledError';
  }
}

/**
 * A team's stored token that the current secret cannot open: a permanent
 * failure (retrying cannot open it), saying the two ways out.
 */
export const unreadableToken = (teamId: string) =>
  new PermanentFailure(
    `The bot token stored for the Slack team ${teamId} cannot be decrypted: it was stored under another secret than the current one (SWITCHBOARD_SECRET, or the one generated in DATA_DIR/secret when it is not set), or altered. ` +
      `Set SWITCHBOARD_SECRET back to the secret it was stored under, or connect the team again with \`switchboard slack connect WORKSPACE --team-id ${teamId} --bot-token xoxb-…\` (or install the app again through /slack/install).`,
  );

/** Whether `SecretBox.open` refused a sealed value: it throws a SecretBoxError then, a PermanentFailure. */
const refusedToOpen = (e: unknown) => e instanceof PermanentFailure;

/** Opens a team's sealed token; unreadableToken when the current secret cannot. */
function openToken(box: SecretBox, teamId: string, sealed: string): string {
  try {
    return box.open(sealed, sealContext(teamId));
  } catch (e) {
    throw refusedToOpen(e) ? unreadableToken(teamId) : e;
  }
}

/**
 * The team whose stored token the current secret cannot open, trying only the
 * token stored last (start-up stays quick; one secret seals them all); null
 * when it opens or none is stored.
 */
export async function unreadableTeam(repo: SlackInstallationRepo, box: SecretBox): Promise<string | null> {
  const latest = await repo.latestSealedToken();
  if (!latest) return null;
  try {
    openToken(box, latest.teamId, latest.sealed);
    return null;
  } catch (e) {
    if (refusedToOpen(e)) return latest.teamId;
    throw e;
  }
}

/**
 * A SWITCHBOARD_SECRET changed since Slack tokens were stored leaves them
 * unreadable, and every event of their teams would fail: said at start-up
 * (after the sign-in link), not at the first event. One token is tried.
 */
export async function warnOnUnreadableTokens(
  repo: SlackInstallationRepo,
  box: SecretBox,
  config: Pick<Config, 'dataDir' | 'secret'>,
  logger: Logger,
): Promise<void> {
  const teamId = await unreadableTeam(repo, box).catch((err: unknown) => {
    logger.warn({ err }, 'could not check that the current secret opens the stored Slack tokens');
    return null;
  });
  if (!teamId) return;
  const secretFile = path.join(config.dataDir, 'secret');
  const inUse = config.secret
    ? 'SWITCHBOARD_SECRET, as set now'
    : `the one generated in ${secretFile}, as SWITCHBOARD_SECRET is not set`;
  logger.warn(
    { teamId, secretFile },
    `${unreadableToken(teamId).message} Until then every event from that team fails (the secret in use now is ${inUse}).`,
  );
}

/** Describes what OAuth hands over, minus the token. */
export type InstallationDetails = Omit<SlackInstallationInput, 'botTokenSealed'>;

/**
 * Slack installations over the database: bot tokens sealed with
 * SWITCHBOARD_SECRET, or SLACK_BOT_TOKEN for a team connected without one.
 * Serves Bolt's `authorize` and @slack/oauth's InstallationStore from the same rows.
 */
export class SlackInstallations {
  /**
   * Credentials by team, kept briefly so acknowledging an event never waits on
   * the database. A change made in this process clears it at once; one made by
   * another process is seen within `ttlMs`.
   */
  private readonly cache = new Map<string, { at: number; value: Promise<SlackCredentials | null> }>();

  constructor(
    readonly repo: SlackInstallationRepo,
    private readonly box: SecretBox,
    private readonly envToken: string | undefined,
    private readonly ttlMs = 30_000,
  ) {}

  /** The install for a team (from the same brief cache as the credentials); null when unknown. */
  async get(teamId: string): Promise<SlackInstallation | null> {
    return (await this.credentials(teamId))?.installation ?? this.repo.get(teamId);
  }

  /** The token to call Slack with for a team; null when the team is unknown or has no usable token. */
  credentials(teamId: string): Promise<SlackCredentials | null> {
    const hit = this.cache.get(teamId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.load(teamId);
    this.cache.set(teamId, { at: Date.now(), value });
    // A failed read is not remembered.
    value.catch(() => this.cache.delete(teamId));
    return value;
  }

  private async load(teamId: string): Promise<SlackCredentials | null> {
    const installation = await this.repo.get(teamId);
    if (!installation) return null;
    if (!installation.hasOwnToken) return this.envToken ? { token: this.envToken, installation } : null;
    const sealed = await this.repo.sealedToken(teamId);
    return sealed ? { token: openToken(this.box, teamId, sealed), installation } : null;
  }

  /**
   * Stores an install. `token` null keeps the stored token if there is one
   * (re-connecting to another workspace), else relies on SLACK_BOT_TOKEN.
   */
  async save(details: InstallationDetails, token: string | null): Promise<SlackInstallation> {
    const botTokenSealed = token
      ? this.box.seal(token, sealContext(details.teamId))
      : await this.repo.sealedToken(details.teamId);
    try {
      return await this.repo.put({ ...details, botTokenSealed });
    } finally {
      this.cache.delete(details.teamId);
    }
  }

  /**
   * Forgets a team's install, its sealed token and its workspace mapping (the app was uninstalled); no-op when absent.
   * With `before`, only an install made or last updated before then; false when a newer one stays.
   */
  async remove(teamId: string, before?: Date): Promise<boolean> {
    try {
      return await this.repo.remove(teamId, before);
    } finally {
      this.cache.delete(teamId);
    }
  }

  /** Bolt's authorize: the bot token and identity for the team an event came from. */
  readonly authorize: Authorize<boolean> = async (source) => {
    const teamId = source.teamId;
    const creds = teamId ? await this.credentials(teamId) : null;
    if (!creds) throw new NotInstalledError(teamId ?? `(enterprise ${source.enterpriseId})`);
    const { installation } = creds;
    return {
      botToken: creds.token,
      botId: installation.botId,
      botUserId: installation.botUserId,
      teamId,
      enterpriseId: installation.enterpriseId ?? undefined,
    };
  };

  /** @slack/oauth's InstallationStore; `mapWorkspace` picks the workspace a new install maps to (undefined keeps the current one). */
  installationStore(
    mapWorkspace: (installation: Installation) => Promise<string | null | undefined>,
  ): InstallationStore {
    return {
      storeInstallation: async (installation) => {
        if (installation.isEnterpriseInstall || !installation.team) {
          throw new Error(
            'Switchboard is installed per Slack workspace; an organization-wide Enterprise Grid install is not supported. Install it to a workspace of the organization instead.',
          );
        }
        if (!installation.bot)
          throw new Error('The Slack install carried no bot token; the app must request bot scopes.');
        await this.save(
          {
            teamId: installation.team.id,
            enterpriseId: installation.enterprise?.id ?? null,
            teamName: installation.team.name ?? '',
            botUserId: installation.bot.userId,
            botId: installation.bot.id,
            appId: installation.appId ?? null,
            scopes: installation.bot.scopes.join(','),
            installedBy: installation.user.id,
            workspaceId: await mapWorkspace(installation as Installation),
          },
          installation.bot.token,
        );
      },
      fetchInstallation: async (query: InstallationQuery<boolean>) => {
        const creds = query.teamId ? await this.credentials(query.teamId) : null;
        if (!creds) throw new NotInstalledError(query.teamId ?? `(enterprise ${query.enterpriseId})`);
        const i = creds.installation;
        return {
          team: { id: i.teamId, name: i.teamName },
          enterprise: i.enterpriseId ? { id: i.enterpriseId } : undefined,
          user: { token: undefined, scopes: undefined, id: i.installedBy ?? '' },
          bot: { token: creds.token, scopes: i.scopes ? i.scopes.split(',') : [], id: i.botId, userId: i.botUserId },
          appId: i.appId ?? undefined,
          tokenType: 'bot',
          isEnterpriseInstall: false,
          authVersion: 'v2',
        } as Installation<'v2', false>;
      },
      deleteInstallation: async (query) => {
        if (query.teamId) await this.remove(query.teamId);
      },
    };
  }
}
