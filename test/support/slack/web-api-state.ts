// The pretend workspace behind the Web API stand-in: who the tokens speak for,
// the people, channel memberships, messages the bot posted and Home tabs it
// published. Method handlers (web-api-methods.ts) read and change it; tests
// seed it through the stand-in's setters.
import { randomBytes } from 'node:crypto';
import { SLACK_DEFAULTS } from './defaults.ts';

/** Whom a bot token speaks for (the workspace it was installed in). */
export interface TokenIdentity {
  teamId: string;
  teamName: string;
  teamDomain: string;
  appId: string;
  botUserId: string;
  botId: string;
  botName: string;
  /** Comma-separated scopes, as Slack reports them in `x-oauth-scopes`. */
  scope: string;
}

/** A person as a test describes them; everything else gets Slack-like defaults. */
export interface SlackUserSeed {
  name?: string;
  real_name?: string;
  display_name?: string;
  email?: string;
  image_72?: string;
  team_id?: string;
  tz?: string;
  is_bot?: boolean;
  deleted?: boolean;
  is_admin?: boolean;
  is_owner?: boolean;
  /** Multi-channel guest. */
  is_restricted?: boolean;
  /** Single-channel guest. */
  is_ultra_restricted?: boolean;
  /** Set for bot users: the bot's B… id. */
  bot_id?: string;
}

/**
 * A channel as a test describes it, for conversations.info. A channel known only from setChannelMembers is answered as
 * a public channel, as most channels are, without a name.
 */
export interface SlackChannelSeed {
  name: string;
  is_private?: boolean;
  /** Shared with another organization (Slack Connect). */
  is_ext_shared?: boolean;
  is_archived?: boolean;
  /** A DM (`D…`) or group DM: no name Slack would show. */
  is_im?: boolean;
  is_mpim?: boolean;
}

/** A message as the stand-in stores it, keyed by channel and ts. */
export interface StoredMessage {
  type: 'message';
  ts: string;
  text?: string;
  user?: string;
  bot_id?: string;
  thread_ts?: string;
  [key: string]: unknown;
}

/** What the app set on an assistant thread: its status line, title and suggested prompts. */
export interface AssistantThreadState {
  status?: string;
  /** Every status set, in order ('' for a clear). */
  statuses: string[];
  title?: string;
  prompts?: Array<{ title: string; message: string }>;
  promptsTitle?: string;
}

/** A pending authorization code, as if a person had just clicked "Allow". */
export interface OAuthGrant {
  teamId: string;
  teamName: string;
  installerUserId: string;
  scope: string;
  botUserId: string;
  botId: string;
  redirectUri?: string;
}

export interface TokenRecord {
  identity: TokenIdentity;
  /** Set when the token stops working: `token_revoked` or `account_inactive`. */
  revoked?: 'token_revoked' | 'account_inactive';
}

export const DEFAULT_BOT_SCOPES =
  'app_mentions:read,channels:history,channels:read,chat:write,chat:write.customize,commands,groups:history,groups:read,im:history,im:read,im:write,mpim:history,users:read,users:read.email,assistant:write,links:read,links:write';

export class SlackState {
  readonly tokens = new Map<string, TokenRecord>();
  readonly users = new Map<string, SlackUserSeed>();
  readonly channelMembers = new Map<string, string[]>();
  readonly channels = new Map<string, SlackChannelSeed>();
  readonly messages = new Map<string, Map<string, StoredMessage>>();
  readonly homeViews = new Map<string, Record<string, unknown>>();
  /** Open DMs and group DMs: conversation id → the people in it (besides the bot). */
  readonly openedConversations = new Map<string, string[]>();
  readonly oauthCodes = new Map<string, OAuthGrant>();
  /** Assistant threads the app decorated, by `channel:thread_ts`. */
  readonly assistantThreads = new Map<string, AssistantThreadState>();
  /** How long a streaming message waits for its next append before Slack ends it (about five minutes). */
  streamIdleMs = 5 * 60_000;
  /** Time passed on top of the real clock (`passTime`), so a test can let a stream go idle without waiting. */
  clockOffsetMs = 0;
  /** When each streaming message (`channel:ts`) was started or last appended to, on `now()`'s clock. */
  private readonly streamTouched = new Map<string, number>();
  private tsCounter = 0;
  private idCounter = 0;

  constructor(
    readonly home: TokenIdentity,
    readonly oauthClient: { clientId: string; clientSecret: string },
  ) {}

  /** The next message ts: "1700000000.000100", "1700000000.000200", … always increasing. */
  nextTs(): string {
    this.tsCounter += 1;
    const micros = this.tsCounter * 100;
    const seconds = 1_700_000_000 + Math.floor(micros / 1_000_000);
    return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}`;
  }

  /** A fresh Slack-looking id with the given prefix (V…, G…). */
  nextId(prefix: string): string {
    this.idCounter += 1;
    return `${prefix}0${String(this.idCounter).padStart(8, '0')}`;
  }

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  message(channel: string, ts: string): StoredMessage | undefined {
    const message = this.messages.get(channel)?.get(ts);
    if (message?.streaming === true) this.expireIfIdle(channel, message);
    return message;
  }

  /** A streaming message started or added to now. */
  touchStream(channel: string, ts: string): void {
    this.streamTouched.set(`${channel}:${ts}`, this.now());
  }

  /**
   * Ends a stream left without an append for `streamIdleMs`, as Slack does: it stops streaming, its text stays, and
   * it shows as failed (`stream_expired`) until chat.update replaces it.
   */
  private expireIfIdle(channel: string, message: StoredMessage): void {
    const touched = this.streamTouched.get(`${channel}:${message.ts}`);
    if (touched === undefined || this.now() - touched < this.streamIdleMs) return;
    message.streaming = false;
    message.stream_expired = true;
    this.streamTouched.delete(`${channel}:${message.ts}`);
  }

  storeMessage(channel: string, message: StoredMessage): void {
    let byTs = this.messages.get(channel);
    if (!byTs) this.messages.set(channel, (byTs = new Map()));
    byTs.set(message.ts, message);
  }

  /** Register a grant and return its single-use code. */
  issueCode(grant: OAuthGrant): string {
    const code = `${grant.teamId}.${Date.now()}.${randomBytes(16).toString('hex')}`;
    this.oauthCodes.set(code, grant);
    return code;
  }

  /** Turn a used grant into a working bot token for that workspace. */
  issueBotToken(grant: OAuthGrant): string {
    const token = `xoxb-${grant.teamId}-${randomBytes(6).toString('hex')}-${randomBytes(12).toString('hex')}`;
    this.tokens.set(token, {
      identity: {
        ...this.home,
        teamId: grant.teamId,
        teamName: grant.teamName,
        teamDomain: grant.teamName.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
        botUserId: grant.botUserId,
        botId: grant.botId,
        scope: grant.scope,
      },
    });
    return token;
  }

  /** users.info's `user` object for a seeded person. */
  userObject(id: string, seed: SlackUserSeed): Record<string, unknown> {
    const name = seed.name ?? id.toLowerCase();
    const realName = seed.real_name ?? name;
    const displayName = seed.display_name ?? '';
    const image = seed.image_72 ?? `https://avatars.slack-edge.com/standin/${id}_72.png`;
    const teamId = seed.team_id ?? this.home.teamId;
    const profile: Record<string, unknown> = {
      title: '',
      phone: '',
      skype: '',
      real_name: realName,
      real_name_normalized: realName,
      display_name: displayName,
      display_name_normalized: displayName,
      fields: null,
      status_text: '',
      status_emoji: '',
      status_expiration: 0,
      avatar_hash: `g${id.toLowerCase().slice(0, 11)}`,
      first_name: realName.split(' ')[0] ?? realName,
      last_name: realName.split(' ').slice(1).join(' '),
      image_24: image.replace('_72', '_24'),
      image_32: image.replace('_72', '_32'),
      image_48: image.replace('_72', '_48'),
      image_72: image,
      image_192: image.replace('_72', '_192'),
      image_512: image.replace('_72', '_512'),
      team: teamId,
    };
    if (seed.email !== undefined && !seed.is_bot) profile.email = seed.email;
    if (seed.is_bot) {
      profile.bot_id = seed.bot_id ?? this.home.botId;
      profile.api_app_id = this.home.appId;
      profile.always_active = true;
    }
    return {
      id,
      team_id: teamId,
      name,
      deleted: seed.deleted ?? false,
      color: '9f69e7',
      real_name: realName,
      tz: seed.tz ?? 'Europe/London',
      tz_label: 'Greenwich Mean Time',
      tz_offset: 0,
      profile,
      is_admin: seed.is_admin ?? false,
      is_owner: seed.is_owner ?? false,
      is_primary_owner: false,
      is_restricted: seed.is_restricted ?? false,
      is_ultra_restricted: seed.is_ultra_restricted ?? false,
      is_bot: seed.is_bot ?? false,
      is_app_user: false,
      updated: 1_700_000_000,
      is_email_confirmed: !seed.is_bot,
      who_can_share_contact_card: 'EVERYONE',
    };
  }
}

/** The identity of the default install, from the stand-in's options. */
export function homeIdentity(overrides: Partial<TokenIdentity>): TokenIdentity {
  return {
    teamId: overrides.teamId ?? SLACK_DEFAULTS.teamId,
    teamName: overrides.teamName ?? SLACK_DEFAULTS.teamName,
    teamDomain: overrides.teamDomain ?? SLACK_DEFAULTS.teamDomain,
    appId: overrides.appId ?? SLACK_DEFAULTS.appId,
    botUserId: overrides.botUserId ?? SLACK_DEFAULTS.botUserId,
    botId: overrides.botId ?? SLACK_DEFAULTS.botId,
    botName: overrides.botName ?? SLACK_DEFAULTS.botName,
    scope: overrides.scope ?? DEFAULT_BOT_SCOPES,
  };
}
