// Web API methods the stand-in answers, each shaped after Slack's documented
// success response and the documented error codes for the cases a test can
// reach (unknown channel, unknown message, someone else's message, bad cursor…).
import { randomBytes } from 'node:crypto';
import { dmChannelId, workspaceUrl } from './defaults.ts';
import type { SlackChannelSeed, SlackState, StoredMessage, TokenIdentity } from './web-api-state.ts';

export type Args = Record<string, unknown>;
export type SlackResult = { ok: boolean; error?: string } & Record<string, unknown>;

export interface MethodContext {
  args: Args;
  /** The workspace the calling token belongs to; undefined only for methods that need no token. */
  identity: TokenIdentity | undefined;
  state: SlackState;
  /** Client credentials sent with HTTP Basic auth (oauth.v2.access). */
  basicAuth: { user: string; password: string } | undefined;
}

export type MethodHandler = (ctx: MethodContext) => SlackResult;

/** Methods callable without a token. */
export const TOKENLESS_METHODS = new Set(['oauth.v2.access']);

export const fail = (error: string, extra: Args = {}): SlackResult => ({ ok: false, error, ...extra });

export function str(value: unknown): string | undefined {
  if (Array.isArray(value)) return str(value[0]);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export function bool(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

export const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const USER_ID = /^[UW][A-Z0-9]{2,}$/;

/**
 * The channel a message is posted to: a channel/DM id as is, or a user id,
 * which Slack resolves to the DM between the bot and that person.
 */
export function resolveChannel(channel: string | undefined): string | undefined {
  if (!channel) return undefined;
  if (CHANNEL_ID.test(channel)) return channel;
  if (USER_ID.test(channel)) return dmChannelId(channel);
  return undefined;
}

export function authoredByBot(identity: TokenIdentity, args: Args, ts: string): StoredMessage {
  const message: StoredMessage = {
    type: 'message',
    ts,
    text: str(args.text) ?? '',
    user: identity.botUserId,
    bot_id: identity.botId,
    app_id: identity.appId,
    team: identity.teamId,
    bot_profile: {
      id: identity.botId,
      app_id: identity.appId,
      name: identity.botName,
      icons: { image_48: `https://avatars.slack-edge.com/standin/${identity.botId}_48.png` },
      deleted: false,
      team_id: identity.teamId,
    },
  };
  for (const key of ['blocks', 'attachments', 'metadata'] as const) {
    if (args[key] !== undefined) message[key] = args[key];
  }
  const username = str(args.username);
  if (username) {
    message.subtype = 'bot_message';
    message.username = username;
  }
  const iconUrl = str(args.icon_url);
  const iconEmoji = str(args.icon_emoji);
  if (iconEmoji) message.icons = { emoji: iconEmoji };
  else if (iconUrl) message.icons = { image_48: iconUrl };
  return message;
}

function hasContent(args: Args): boolean {
  return Boolean(str(args.text) || args.blocks || args.attachments || str(args.markdown_text));
}

function permalink(identity: TokenIdentity, channel: string, ts: string, threadTs?: string): string {
  const base = `${workspaceUrl(identity.teamDomain)}archives/${channel}/p${ts.replace('.', '')}`;
  return threadTs && threadTs !== ts ? `${base}?thread_ts=${threadTs}&cid=${channel}` : base;
}

function encodeCursor(userId: string): string {
  return Buffer.from(`user_id:${userId}`).toString('base64');
}

function decodeCursor(cursor: string): string | undefined {
  const decoded = Buffer.from(cursor, 'base64').toString('utf8');
  return decoded.startsWith('user_id:') ? decoded.slice('user_id:'.length) : undefined;
}

const compareTs = (a: string, b: string) => Number(a) - Number(b);

/** `oldest`/`latest` (exclusive unless `inclusive`), as conversations.history and .replies apply them. */
function inTimeRange(messages: StoredMessage[], args: Args): StoredMessage[] {
  const oldest = Number(str(args.oldest) ?? 0);
  const latest = str(args.latest) === undefined ? Infinity : Number(str(args.latest));
  const inclusive = bool(args.inclusive);
  return messages.filter((m) => {
    const t = Number(m.ts);
    return (inclusive ? t >= oldest : t > oldest) && (inclusive ? t <= latest : t < latest);
  });
}

/**
 * One page of a message list, with Slack's cursor and has_more. Metadata is
 * returned only when asked for with include_all_metadata, as Slack does.
 */
function page(messages: StoredMessage[], args: Args): SlackResult {
  const limit = Math.min(Math.max(Number(str(args.limit) ?? 100) || 100, 1), 1000);
  const cursor = str(args.cursor);
  let start = 0;
  if (cursor) {
    const decoded = Buffer.from(cursor, 'base64').toString('utf8');
    start = decoded.startsWith('next_ts:') ? messages.findIndex((m) => m.ts === decoded.slice('next_ts:'.length)) : -1;
    if (start < 0) return fail('invalid_cursor');
  }
  const withMetadata = bool(args.include_all_metadata);
  const out = messages.slice(start, start + limit).map((m) => {
    if (withMetadata || m.metadata === undefined) return m;
    const { metadata: _hidden, ...rest } = m;
    return rest;
  });
  const next = messages[start + limit];
  return {
    ok: true,
    messages: out,
    has_more: Boolean(next),
    response_metadata: { next_cursor: next ? Buffer.from(`next_ts:${next.ts}`).toString('base64') : '' },
  };
}

export const METHODS: Record<string, MethodHandler> = {
  'auth.test': ({ identity }) => {
    const id = identity!;
    return {
      ok: true,
      url: workspaceUrl(id.teamDomain),
      team: id.teamName,
      user: id.botName,
      team_id: id.teamId,
      user_id: id.botUserId,
      bot_id: id.botId,
      is_enterprise_install: false,
    };
  },

  'chat.postMessage': ({ args, identity, state }) => {
    const channel = resolveChannel(str(args.channel));
    if (!channel) return fail('channel_not_found');
    if (!hasContent(args)) return fail('no_text');
    const message = authoredByBot(identity!, args, state.nextTs());
    const threadTs = str(args.thread_ts);
    if (threadTs) {
      message.thread_ts = threadTs;
      const parent = state.message(channel, threadTs);
      if (parent?.user) message.parent_user_id = parent.user;
      if (bool(args.reply_broadcast)) message.subtype = 'thread_broadcast';
    }
    state.storeMessage(channel, message);
    return { ok: true, channel, ts: message.ts, message };
  },

  'chat.update': ({ args, identity, state }) => {
    const channel = resolveChannel(str(args.channel));
    if (!channel) return fail('channel_not_found');
    const ts = str(args.ts);
    const existing = ts ? state.message(channel, ts) : undefined;
    if (!ts || !existing) return fail('message_not_found');
    if (existing.bot_id !== identity!.botId) return fail('cant_update_message');
    if (!hasContent(args)) return fail('no_text');
    // An update replaces what a stream Slack ended left behind (shown as failed until then).
    const { stream_expired: _expired, ...kept } = existing;
    const updated: StoredMessage = {
      ...kept,
      text: str(args.text) ?? '',
      edited: { user: identity!.botUserId, ts: state.nextTs() },
    };
    for (const key of ['blocks', 'attachments', 'metadata'] as const) {
      if (args[key] !== undefined) updated[key] = args[key];
    }
    state.storeMessage(channel, updated);
    return { ok: true, channel, ts, text: updated.text, message: updated };
  },

  'chat.delete': ({ args, identity, state }) => {
    const channel = resolveChannel(str(args.channel));
    if (!channel) return fail('channel_not_found');
    const ts = str(args.ts);
    const existing = ts ? state.message(channel, ts) : undefined;
    if (!ts || !existing) return fail('message_not_found');
    if (existing.bot_id !== identity!.botId) return fail('cant_delete_message');
    state.messages.get(channel)!.delete(ts);
    return { ok: true, channel, ts };
  },

  // Top-level messages of a channel, newest first; thread replies only when broadcast.
  'conversations.history': ({ args, state }) => {
    const channel = str(args.channel);
    if (!channel || !CHANNEL_ID.test(channel)) return fail('channel_not_found');
    const all = [...(state.messages.get(channel)?.values() ?? [])]
      .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.subtype === 'thread_broadcast')
      .sort((a, b) => compareTs(b.ts, a.ts));
    return { ...page(inTimeRange(all, args), args), pin_count: 0, channel_actions_ts: null, channel_actions_count: 0 };
  },

  // A thread: its parent first, then the replies oldest first.
  'conversations.replies': ({ args, state }) => {
    const channel = str(args.channel);
    const ts = str(args.ts);
    if (!channel || !CHANNEL_ID.test(channel)) return fail('channel_not_found');
    if (!ts)
      return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: ts'] } });
    const byTs = state.messages.get(channel);
    const replies = [...(byTs?.values() ?? [])]
      .filter((m) => m.thread_ts === ts && m.ts !== ts)
      .sort((a, b) => compareTs(a.ts, b.ts));
    // People's messages never went through the stand-in unless seeded; Slack knows them, so an
    // unknown parent answers with the replies the stand-in has (Slack would put the parent first).
    const parent = byTs?.get(ts);
    const thread = [...(parent ? [{ ...parent, reply_count: replies.length }] : []), ...replies];
    return page(inTimeRange(thread, args), args);
  },

  'chat.postEphemeral': ({ args, state }) => {
    const channel = resolveChannel(str(args.channel));
    if (!channel) return fail('channel_not_found');
    const user = str(args.user);
    if (!user || !USER_ID.test(user)) return fail('user_not_found');
    const members = state.channelMembers.get(channel);
    if (members && !members.includes(user)) return fail('user_not_in_channel');
    if (!hasContent(args)) return fail('no_text');
    return { ok: true, message_ts: state.nextTs() };
  },

  'chat.getPermalink': ({ args, identity, state }) => {
    const channel = resolveChannel(str(args.channel));
    if (!channel) return fail('channel_not_found');
    const ts = str(args.message_ts);
    if (!ts) return fail('message_not_found');
    // Messages people wrote never went through the stand-in; Slack knows them, so answer as it would.
    const known = state.message(channel, ts);
    return { ok: true, channel, permalink: permalink(identity!, channel, ts, known?.thread_ts) };
  },

  'conversations.open': ({ args, identity, state }) => {
    const users = (str(args.users) ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    if (users.length === 0) {
      const channel = str(args.channel);
      return channel && state.openedConversations.has(channel)
        ? { ok: true, no_op: true, already_open: true, channel: { id: channel } }
        : fail(channel ? 'channel_not_found' : 'users_list_not_supplied');
    }
    if (users.includes(identity!.botUserId)) return fail('cannot_dm_bot');
    if (users.some((u) => !USER_ID.test(u) || state.users.get(u)?.deleted)) return fail('user_not_found');
    const key = [...users].sort().join(',');
    const existing = [...state.openedConversations].find(([, people]) => [...people].sort().join(',') === key)?.[0];
    const id = existing ?? (users.length === 1 ? dmChannelId(users[0]!) : state.nextId('G'));
    const alreadyOpen = existing !== undefined;
    state.openedConversations.set(id, users);
    const channel: Record<string, unknown> = { id };
    if (bool(args.return_im) && users.length === 1) {
      Object.assign(channel, {
        created: 1_700_000_000,
        is_im: true,
        is_org_shared: false,
        user: users[0],
        is_user_deleted: false,
        priority: 0,
      });
    }
    return alreadyOpen ? { ok: true, no_op: true, already_open: true, channel } : { ok: true, channel };
  },

  'conversations.members': ({ args, identity, state }) => {
    const channel = str(args.channel);
    let members = channel ? state.channelMembers.get(channel) : undefined;
    const opened = channel ? state.openedConversations.get(channel) : undefined;
    if (!members && opened) members = [...opened, identity!.botUserId];
    if (!channel || !members) return fail('channel_not_found');
    const limit = Math.min(Math.max(Number(str(args.limit) ?? 100) || 100, 1), 1000);
    const cursor = str(args.cursor);
    let start = 0;
    if (cursor) {
      const from = decodeCursor(cursor);
      start = from === undefined ? -1 : members.indexOf(from);
      if (start < 0) return fail('invalid_cursor');
    }
    const page = members.slice(start, start + limit);
    const next = members[start + limit];
    return { ok: true, members: page, response_metadata: { next_cursor: next ? encodeCursor(next) : '' } };
  },

  // A private channel the bot is not in is channel_not_found, as Slack answers it.
  'conversations.info': ({ args, identity, state }) => {
    const id = str(args.channel);
    const members = id ? state.channelMembers.get(id) : undefined;
    // A channel known only from its members is a public one the stand-in has no name for (a test that needs one seeds it).
    const seed: Partial<SlackChannelSeed> | undefined = id
      ? (state.channels.get(id) ?? (members ? {} : undefined))
      : undefined;
    if (!id || !seed || (seed.is_private && members && !members.includes(identity!.botUserId)))
      return fail('channel_not_found');
    const channel: Record<string, unknown> = {
      id,
      created: 1_700_000_000,
      is_archived: seed.is_archived ?? false,
      is_general: seed.name === 'general',
      is_im: seed.is_im ?? false,
      is_mpim: seed.is_mpim ?? false,
      is_private: seed.is_private ?? seed.is_mpim ?? false,
      is_channel: !seed.is_im && !seed.is_mpim && !seed.is_private,
      is_group: Boolean(seed.is_private && !seed.is_mpim),
      is_member: members ? members.includes(identity!.botUserId) : true,
      is_shared: seed.is_ext_shared ?? false,
      is_ext_shared: seed.is_ext_shared ?? false,
      is_org_shared: false,
      context_team_id: identity!.teamId,
      creator: 'U0CREATOR1',
      unlinked: 0,
      topic: { value: '', creator: '', last_set: 0 },
      purpose: { value: '', creator: '', last_set: 0 },
      previous_names: [],
    };
    if (!seed.is_im) Object.assign(channel, { name: seed.name, name_normalized: seed.name });
    return { ok: true, channel };
  },

  'users.info': ({ args, identity, state }) => {
    const id = str(args.user);
    if (id && id === identity!.botUserId && !state.users.has(id)) {
      return {
        ok: true,
        user: state.userObject(id, {
          name: identity!.botName,
          real_name: identity!.botName,
          is_bot: true,
          bot_id: identity!.botId,
        }),
      };
    }
    const seed = id ? state.users.get(id) : undefined;
    if (!id || !seed) return fail('user_not_found');
    return { ok: true, user: state.userObject(id, seed) };
  },

  // Everyone the stand-in knows in the calling token's team (the bot user too), deleted ones included, as Slack lists them.
  'users.list': ({ args, identity, state }) => {
    const teamId = identity!.teamId;
    const ids = [...state.users.keys()].filter((id) => (state.users.get(id)!.team_id ?? state.home.teamId) === teamId);
    if (!state.users.has(identity!.botUserId)) ids.push(identity!.botUserId);
    const limit = Math.min(Math.max(Number(str(args.limit) ?? 0) || ids.length || 1, 1), 1000);
    const cursor = str(args.cursor);
    let start = 0;
    if (cursor) {
      const from = decodeCursor(cursor);
      start = from === undefined ? -1 : ids.indexOf(from);
      if (start < 0) return fail('invalid_cursor');
    }
    const page = ids.slice(start, start + limit).map((id) =>
      id === identity!.botUserId && !state.users.has(id)
        ? state.userObject(id, {
            name: identity!.botName,
            real_name: identity!.botName,
            is_bot: true,
            bot_id: identity!.botId,
            team_id: teamId,
          })
        : state.userObject(id, state.users.get(id)!),
    );
    const next = ids[start + limit];
    return {
      ok: true,
      members: page,
      cache_ts: 1_700_000_000,
      response_metadata: { next_cursor: next ? encodeCursor(next) : '' },
    };
  },

  'views.publish': ({ args, identity, state }) => {
    const userId = str(args.user_id);
    if (!userId || !USER_ID.test(userId))
      return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] invalid `user_id`'] } });
    const view = args.view as Record<string, unknown> | undefined;
    if (!view || typeof view !== 'object' || view.type !== 'home') {
      return fail('invalid_arguments', {
        response_metadata: { messages: ['[ERROR] must provide a home view [json-pointer:/view/type]'] },
      });
    }
    const current = state.homeViews.get(userId);
    const hash = str(args.hash);
    if (hash && current && current.hash !== hash) return fail('hash_conflict');
    const id = (current?.id as string | undefined) ?? state.nextId('V');
    const published = {
      id,
      team_id: identity!.teamId,
      type: 'home',
      close: null,
      submit: null,
      blocks: view.blocks ?? [],
      private_metadata: view.private_metadata ?? '',
      callback_id: view.callback_id ?? '',
      state: { values: {} },
      hash: `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`,
      title: { type: 'plain_text', text: 'View Title', emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      root_view_id: id,
      previous_view_id: null,
      app_id: identity!.appId,
      external_id: view.external_id ?? '',
      app_installed_team_id: identity!.teamId,
      bot_id: identity!.botId,
    };
    state.homeViews.set(userId, published);
    return { ok: true, view: published };
  },

  'oauth.v2.access': ({ args, state, basicAuth }) => {
    const clientId = basicAuth?.user ?? str(args.client_id);
    const clientSecret = basicAuth?.password ?? str(args.client_secret);
    if (clientId !== state.oauthClient.clientId) return fail('invalid_client_id');
    if (clientSecret !== state.oauthClient.clientSecret) return fail('bad_client_secret');
    const code = str(args.code);
    const grant = code ? state.oauthCodes.get(code) : undefined;
    if (!code || !grant) return fail('invalid_code');
    if (grant.redirectUri && str(args.redirect_uri) !== grant.redirectUri) return fail('bad_redirect_uri');
    state.oauthCodes.delete(code); // single use: exchanging it again is invalid_code
    return {
      ok: true,
      app_id: state.home.appId,
      authed_user: { id: grant.installerUserId },
      scope: grant.scope,
      token_type: 'bot',
      access_token: state.issueBotToken(grant),
      bot_user_id: grant.botUserId,
      team: { id: grant.teamId, name: grant.teamName },
      enterprise: null,
      is_enterprise_install: false,
    };
  },

  // Reactions on a message, stored as Slack returns them (`reactions: [{ name, users, count }]`);
  // Slack keeps an alias under its canonical name (thumbsup is +1).
  'reactions.add': ({ args, identity, state }) => reactWith(args, identity!, state, true),
  'reactions.remove': ({ args, identity, state }) => reactWith(args, identity!, state, false),
};

const EMOJI_ALIASES: Record<string, string> = { thumbsup: '+1', thumbsdown: '-1' };

/** reactions.add / reactions.remove on a message the stand-in knows: already_reacted, no_reaction, invalid_name, message_not_found as Slack answers. */
function reactWith(args: Args, identity: TokenIdentity, state: SlackState, on: boolean): SlackResult {
  const channel = resolveChannel(str(args.channel));
  const ts = str(args.timestamp);
  const raw = str(args.name);
  if (!channel || !ts) return fail('no_item_specified');
  if (!raw || !/^[a-z0-9_+'-]+$/.test(raw)) return fail('invalid_name');
  const existing = state.message(channel, ts);
  if (!existing) return fail('message_not_found');
  const name = EMOJI_ALIASES[raw] ?? raw;
  const reactions = [
    ...((existing.reactions as Array<{ name: string; users: string[]; count: number }> | undefined) ?? []),
  ];
  const found = reactions.find((r) => r.name === name);
  const user = identity.botUserId;
  if (on) {
    if (found?.users.includes(user)) return fail('already_reacted');
    if (found) Object.assign(found, { users: [...found.users, user], count: found.count + 1 });
    else reactions.push({ name, users: [user], count: 1 });
  } else {
    if (!found?.users.includes(user)) return fail('no_reaction');
    Object.assign(found, { users: found.users.filter((u) => u !== user), count: found.count - 1 });
  }
  state.storeMessage(channel, { ...existing, reactions: reactions.filter((r) => r.count > 0) });
  return { ok: true };
}
