// Request bodies Slack sends to an app, shaped after Slack's documented
// payloads (Events API envelope, block_actions, view_submission, slash
// commands, url_verification) and typed with Bolt's own payload types so a
// drift from what Bolt expects fails to compile. Events are JSON; interactivity
// is form-encoded as `payload=<json>`; slash commands are plain form fields.
import type {
  BlockAction,
  ButtonAction,
  EnvelopedEvent,
  SlashCommand,
  StaticSelectAction,
  ViewStateValue,
  ViewSubmitAction,
  types,
} from '@slack/bolt';
import { randomUUID } from 'node:crypto';
import { SLACK_DEFAULTS, dmChannelId } from './defaults.ts';

/** A body ready to sign and POST, plus the payload it carries for assertions. */
export interface SlackRequestBody<P = unknown> {
  contentType: 'application/json' | 'application/x-www-form-urlencoded';
  body: string;
  payload: P;
}

let tsCounter = 0;
/** A fresh, increasing message ts for events people "write" (apart from the stand-in's 1700000000.* range). */
export function nextEventTs(): string {
  tsCounter += 1;
  return `1710000000.${String(tsCounter * 100).padStart(6, '0')}`;
}

let eventCounter = 0;
function nextEventId(): string {
  eventCounter += 1;
  return `Ev0STANDIN${String(eventCounter).padStart(4, '0')}`;
}

function triggerId(): string {
  return `${Date.now()}.${SLACK_DEFAULTS.teamId.slice(1)}.${randomUUID().replace(/-/g, '')}`;
}

const json = <P>(payload: P): SlackRequestBody<P> => ({
  contentType: 'application/json',
  body: JSON.stringify(payload),
  payload,
});

const form = <P>(payload: P, fields: Record<string, string>): SlackRequestBody<P> => ({
  contentType: 'application/x-www-form-urlencoded',
  body: new URLSearchParams(fields).toString(),
  payload,
});

/** Interactivity payloads travel as one form field holding JSON. */
const interactive = <P>(payload: P) => form(payload, { payload: JSON.stringify(payload) });

export interface EnvelopeOptions {
  teamId?: string;
  apiAppId?: string;
  eventId?: string;
  /** Seconds since the epoch; default now. */
  eventTime?: number;
  /** The installation(s) the event is for; default the stand-in's bot in `teamId`. */
  authorizations?: EnvelopedEvent['authorizations'];
  botUserId?: string;
  isExtSharedChannel?: boolean;
}

/** The Events API envelope around an event (`type: 'event_callback'`), as JSON. */
export function eventCallback<E extends { type: string }>(
  event: E,
  options: EnvelopeOptions = {},
): SlackRequestBody<EnvelopedEvent<E>> {
  const teamId = options.teamId ?? SLACK_DEFAULTS.teamId;
  const envelope: EnvelopedEvent<E> = {
    token: SLACK_DEFAULTS.verificationToken,
    team_id: teamId,
    context_team_id: teamId,
    api_app_id: options.apiAppId ?? SLACK_DEFAULTS.appId,
    event,
    type: 'event_callback',
    event_id: options.eventId ?? nextEventId(),
    event_time: options.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: options.authorizations ?? [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: options.botUserId ?? SLACK_DEFAULTS.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: options.isExtSharedChannel ?? false,
  };
  // Outside Enterprise Grid Slack sends `context_enterprise_id: null`; Bolt's type only allows a string or absence.
  return json({ ...envelope, context_enterprise_id: null } as unknown as EnvelopedEvent<E>);
}

export interface MessageInput {
  user: string;
  text: string;
  channel: string;
  ts?: string;
  thread_ts?: string;
  /** The author of the thread's parent, which Slack adds to replies. */
  parent_user_id?: string;
  team?: string;
  /** Further documented fields (blocks, files, bot_id, subtype…) to add or override. */
  extra?: Record<string, unknown>;
}

/** An `app_mention` event: someone wrote `<@BOT>` in a channel the bot is in. */
export function appMention(input: MessageInput): types.AppMentionEvent {
  const ts = input.ts ?? nextEventTs();
  return {
    client_msg_id: randomUUID(),
    type: 'app_mention',
    text: input.text,
    user: input.user,
    ts,
    team: input.team ?? SLACK_DEFAULTS.teamId,
    ...(input.thread_ts ? { thread_ts: input.thread_ts } : {}),
    ...(input.parent_user_id ? { parent_user_id: input.parent_user_id } : {}),
    channel: input.channel,
    event_ts: ts,
    ...input.extra,
  } as types.AppMentionEvent;
}

/** A plain `message` event in a channel, group, DM or group DM. */
export function message(
  input: MessageInput & { channel_type: 'channel' | 'group' | 'im' | 'mpim' },
): types.GenericMessageEvent {
  const ts = input.ts ?? nextEventTs();
  return {
    client_msg_id: randomUUID(),
    type: 'message',
    text: input.text,
    user: input.user,
    ts,
    team: input.team ?? SLACK_DEFAULTS.teamId,
    ...(input.thread_ts ? { thread_ts: input.thread_ts } : {}),
    ...(input.parent_user_id ? { parent_user_id: input.parent_user_id } : {}),
    channel: input.channel,
    event_ts: ts,
    channel_type: input.channel_type,
    ...input.extra,
  } as types.GenericMessageEvent;
}

/** A `message.im` event: a person wrote to the bot in their DM (channel defaults to the stand-in's DM id). */
export function messageIm(input: Omit<MessageInput, 'channel'> & { channel?: string }): types.GenericMessageEvent {
  return message({ ...input, channel: input.channel ?? dmChannelId(input.user), channel_type: 'im' });
}

type SharedFile = NonNullable<types.FileShareMessageEvent['files']>[number];

/** A file as a `file_share` message lists it: a PNG screenshot `user` uploaded. */
function sharedFile(user: string, team: string, name = 'screenshot.png'): SharedFile {
  const id = `F0${randomUUID().replace(/-/g, '').slice(0, 9).toUpperCase()}`;
  const url = `https://files.slack.com/files-pri/${team}-${id}`;
  return {
    id,
    created: Math.floor(Date.now() / 1000),
    name,
    title: name,
    mimetype: 'image/png',
    filetype: 'png',
    pretty_type: 'PNG',
    user,
    editable: false,
    size: 48_213,
    mode: 'hosted',
    is_external: false,
    external_type: '',
    is_public: false,
    public_url_shared: false,
    display_as_bot: false,
    username: '',
    url_private: `${url}/${name}`,
    url_private_download: `${url}/download/${name}`,
    permalink: `https://${SLACK_DEFAULTS.teamDomain}.slack.com/files/${user}/${id}/${name}`,
    channels: null,
    groups: null,
  };
}

/**
 * A `file_share` message: a person wrote with a file attached (their text may
 * be empty). Unlike a plain message, Slack sends no `team` on it.
 */
export function fileShare(
  input: MessageInput & { channel_type: 'channel' | 'group' | 'im' | 'mpim' },
): types.FileShareMessageEvent {
  const ts = input.ts ?? nextEventTs();
  return {
    type: 'message',
    subtype: 'file_share',
    text: input.text,
    files: [sharedFile(input.user, input.team ?? SLACK_DEFAULTS.teamId)],
    upload: true,
    user: input.user,
    display_as_bot: false,
    ts,
    ...(input.thread_ts ? { thread_ts: input.thread_ts } : {}),
    ...(input.parent_user_id ? { parent_user_id: input.parent_user_id } : {}),
    client_msg_id: randomUUID(),
    channel: input.channel,
    event_ts: ts,
    channel_type: input.channel_type,
    ...input.extra,
  } as types.FileShareMessageEvent;
}

/** A `thread_broadcast` message: a thread reply the person also sent to the channel; it carries the thread's root. */
export function threadBroadcast(
  input: MessageInput & { thread_ts: string; channel_type: 'channel' | 'group'; root: { user: string; text: string } },
): types.ThreadBroadcastMessageEvent {
  const ts = input.ts ?? nextEventTs();
  return {
    type: 'message',
    subtype: 'thread_broadcast',
    text: input.text,
    user: input.user,
    ts,
    thread_ts: input.thread_ts,
    root: {
      client_msg_id: randomUUID(),
      type: 'message',
      subtype: undefined,
      text: input.root.text,
      user: input.root.user,
      ts: input.thread_ts,
      team: input.team ?? SLACK_DEFAULTS.teamId,
      thread_ts: input.thread_ts,
      reply_count: 1,
      reply_users_count: 1,
      latest_reply: ts,
      reply_users: [input.user],
    } as types.ThreadBroadcastMessageEvent['root'],
    client_msg_id: randomUUID(),
    channel: input.channel,
    event_ts: ts,
    channel_type: input.channel_type,
    ...input.extra,
  } as types.ThreadBroadcastMessageEvent;
}

/** `app_home_opened`: a person opened the app's Home or Messages tab. */
export function appHomeOpened(input: {
  user: string;
  channel?: string;
  tab?: 'home' | 'messages';
  view?: Record<string, unknown>;
}): types.AppHomeOpenedEvent {
  return {
    type: 'app_home_opened',
    user: input.user,
    channel: input.channel ?? dmChannelId(input.user),
    tab: input.tab ?? 'home',
    ...(input.view ? { view: input.view } : {}),
    event_ts: nextEventTs(),
  } as types.AppHomeOpenedEvent;
}

export interface MembershipInput {
  user: string;
  channel: string;
  /** 'C' public channel, 'G' private channel or group DM. */
  channel_type?: 'C' | 'G';
  team?: string;
  inviter?: string;
}

/** `member_joined_channel`: someone (possibly the bot) joined a channel the bot is in. */
export function memberJoinedChannel(input: MembershipInput): types.MemberJoinedChannelEvent {
  return {
    type: 'member_joined_channel',
    user: input.user,
    channel: input.channel,
    channel_type: input.channel_type ?? 'C',
    team: input.team ?? SLACK_DEFAULTS.teamId,
    ...(input.inviter ? { inviter: input.inviter } : {}),
    event_ts: nextEventTs(),
  };
}

/** `member_left_channel`: someone left a channel the bot is in. */
export function memberLeftChannel(input: Omit<MembershipInput, 'inviter'>): types.MemberLeftChannelEvent {
  return {
    type: 'member_left_channel',
    user: input.user,
    channel: input.channel,
    channel_type: input.channel_type ?? 'C',
    team: input.team ?? SLACK_DEFAULTS.teamId,
    event_ts: nextEventTs(),
  };
}

/** `team_join`: someone new joined the team; `user` is their users.info object. */
export function teamJoin(user: Record<string, unknown> & { id: string }): types.TeamJoinEvent {
  return {
    type: 'team_join',
    user: {
      team_id: SLACK_DEFAULTS.teamId,
      deleted: false,
      is_bot: false,
      is_restricted: false,
      is_ultra_restricted: false,
      ...user,
    },
    event_ts: nextEventTs(),
  } as unknown as types.TeamJoinEvent;
}

export interface ActionInput {
  action_id: string;
  value?: string;
  block_id?: string;
  /** The button's label. */
  text?: string;
}

export interface BlockActionsInput {
  user: string | { id: string; username?: string; name?: string; team_id?: string };
  team?: string | { id: string; domain: string };
  channel: string | { id: string; name: string };
  /** The message holding the buttons (for an approval card, the card the bot posted). */
  message: { ts: string; text?: string; thread_ts?: string; blocks?: unknown[]; user?: string; bot_id?: string };
  actions: ActionInput[];
  response_url?: string;
  trigger_id?: string;
  apiAppId?: string;
}

/** A `block_actions` payload from a button click in a message, form-encoded as `payload=<json>`. */
export function blockActions(input: BlockActionsInput): SlackRequestBody<BlockAction<ButtonAction>> {
  const user = typeof input.user === 'string' ? { id: input.user } : input.user;
  const team =
    typeof input.team === 'object'
      ? input.team
      : { id: input.team ?? SLACK_DEFAULTS.teamId, domain: SLACK_DEFAULTS.teamDomain };
  const channel =
    typeof input.channel === 'string'
      ? { id: input.channel, name: input.channel.startsWith('D') ? 'directmessage' : 'general' }
      : input.channel;
  const actionTs = `${Math.floor(Date.now() / 1000)}.${String(Date.now() % 1000).padStart(3, '0')}100`;
  const payload: BlockAction<ButtonAction> = {
    type: 'block_actions',
    user: {
      id: user.id,
      username: user.username ?? user.id.toLowerCase(),
      name: user.name ?? user.id.toLowerCase(),
      team_id: user.team_id ?? team.id,
    },
    api_app_id: input.apiAppId ?? SLACK_DEFAULTS.appId,
    token: SLACK_DEFAULTS.verificationToken,
    container: {
      type: 'message',
      message_ts: input.message.ts,
      channel_id: channel.id,
      is_ephemeral: false,
      ...(input.message.thread_ts ? { thread_ts: input.message.thread_ts } : {}),
    },
    trigger_id: input.trigger_id ?? triggerId(),
    team,
    is_enterprise_install: false,
    channel,
    message: {
      type: 'message',
      user: input.message.user ?? SLACK_DEFAULTS.botUserId,
      bot_id: input.message.bot_id ?? SLACK_DEFAULTS.botId,
      app_id: SLACK_DEFAULTS.appId,
      text: input.message.text ?? '',
      blocks: input.message.blocks ?? [],
      team: team.id,
      ts: input.message.ts,
      ...(input.message.thread_ts ? { thread_ts: input.message.thread_ts } : {}),
    },
    state: { values: {} },
    response_url: input.response_url ?? `https://hooks.slack.com/actions/${team.id}/1000000001/standinresponseurl`,
    actions: input.actions.map((action) => ({
      action_id: action.action_id,
      block_id: action.block_id ?? action.action_id,
      text: { type: 'plain_text', text: action.text ?? action.action_id, emoji: true },
      ...(action.value !== undefined ? { value: action.value } : {}),
      type: 'button',
      action_ts: actionTs,
    })),
  };
  // Slack sends `enterprise: null` outside Enterprise Grid; Bolt's type only allows an object or absence.
  return interactive({ ...payload, enterprise: null } as unknown as BlockAction<ButtonAction>);
}

export interface StaticSelectInput {
  user: string;
  team?: string;
  action_id: string;
  block_id?: string;
  /** The chosen option. */
  selected: { value: string; text?: string };
  /** Where the menu was: the App Home tab (default) or a message in a channel or DM. */
  container?: { type: 'view'; view_id: string } | { type: 'message'; channel: string; message_ts: string };
  apiAppId?: string;
}

/** A `block_actions` payload from a static select menu (e.g. in the App Home tab), form-encoded as `payload=<json>`. */
export function staticSelectAction(input: StaticSelectInput): SlackRequestBody<BlockAction<StaticSelectAction>> {
  const teamId = input.team ?? SLACK_DEFAULTS.teamId;
  const container = input.container ?? { type: 'view', view_id: 'V0HOME0001' };
  const action: StaticSelectAction = {
    type: 'static_select',
    action_id: input.action_id,
    block_id: input.block_id ?? 'picker',
    selected_option: {
      text: { type: 'plain_text', text: input.selected.text ?? input.selected.value, emoji: true },
      value: input.selected.value,
    },
    action_ts: `${Math.floor(Date.now() / 1000)}.000200`,
  };
  const payload = {
    type: 'block_actions',
    user: { id: input.user, username: input.user.toLowerCase(), name: input.user.toLowerCase(), team_id: teamId },
    api_app_id: input.apiAppId ?? SLACK_DEFAULTS.appId,
    token: SLACK_DEFAULTS.verificationToken,
    container:
      container.type === 'view'
        ? { type: 'view', view_id: container.view_id }
        : { type: 'message', channel_id: container.channel, message_ts: container.message_ts, is_ephemeral: false },
    trigger_id: triggerId(),
    team: { id: teamId, domain: SLACK_DEFAULTS.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    ...(container.type === 'view'
      ? {
          view: {
            id: container.view_id,
            team_id: teamId,
            type: 'home',
            blocks: [],
            private_metadata: '',
            callback_id: '',
            state: { values: {} },
            hash: 'standin',
            app_id: input.apiAppId ?? SLACK_DEFAULTS.appId,
            bot_id: SLACK_DEFAULTS.botId,
          },
        }
      : { channel: { id: container.channel, name: container.channel.startsWith('D') ? 'directmessage' : 'general' } }),
    state: { values: {} },
    actions: [action],
  };
  return interactive(payload as unknown as BlockAction<StaticSelectAction>);
}

export interface ViewSubmissionInput {
  user: string | { id: string; username?: string; name?: string; team_id?: string };
  team?: string;
  view: {
    callback_id: string;
    id?: string;
    private_metadata?: string;
    /** `state.values`: block_id → action_id → { type, value | selected_option … }. */
    values?: Record<string, Record<string, ViewStateValue>>;
    title?: string;
    blocks?: unknown[];
  };
  trigger_id?: string;
  response_urls?: ViewSubmitAction['response_urls'];
  apiAppId?: string;
}

/** A `view_submission` payload from a modal's submit button, form-encoded as `payload=<json>`. */
export function viewSubmission(input: ViewSubmissionInput): SlackRequestBody<ViewSubmitAction> {
  const user = typeof input.user === 'string' ? { id: input.user } : input.user;
  const teamId = input.team ?? SLACK_DEFAULTS.teamId;
  const viewId = input.view.id ?? 'V0STANDIN1';
  const payload: ViewSubmitAction = {
    type: 'view_submission',
    team: { id: teamId, domain: SLACK_DEFAULTS.teamDomain },
    user: {
      id: user.id,
      username: user.username ?? user.id.toLowerCase(),
      name: user.name ?? user.id.toLowerCase(),
      team_id: user.team_id ?? teamId,
    } as ViewSubmitAction['user'],
    api_app_id: input.apiAppId ?? SLACK_DEFAULTS.appId,
    token: SLACK_DEFAULTS.verificationToken,
    trigger_id: input.trigger_id ?? triggerId(),
    view: {
      id: viewId,
      team_id: teamId,
      type: 'modal',
      blocks: (input.view.blocks ?? []) as ViewSubmitAction['view']['blocks'],
      private_metadata: input.view.private_metadata ?? '',
      callback_id: input.view.callback_id,
      state: { values: input.view.values ?? {} },
      hash: `${Math.floor(Date.now() / 1000)}.standin`,
      title: { type: 'plain_text', text: input.view.title ?? 'Switchboard', emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: { type: 'plain_text', text: 'Cancel', emoji: true },
      submit: { type: 'plain_text', text: 'Submit', emoji: true },
      previous_view_id: null,
      root_view_id: viewId,
      app_id: input.apiAppId ?? SLACK_DEFAULTS.appId,
      external_id: '',
      app_installed_team_id: teamId,
      bot_id: SLACK_DEFAULTS.botId,
    },
    response_urls: input.response_urls ?? [],
    is_enterprise_install: false,
  };
  return interactive({ ...payload, enterprise: null } as unknown as ViewSubmitAction);
}

export interface LinkSharedInput {
  user: string;
  channel: string;
  /** The links in the message, as written. */
  urls: string[];
  message_ts?: string;
  thread_ts?: string;
  /** Whether the app is in the conversation (false for a DM between two people). */
  is_bot_user_member?: boolean;
  /** `composer` while the message is being written, `conversations_history` once posted (the default). */
  source?: 'composer' | 'conversations_history';
}

/** A `link_shared` event (https://docs.slack.dev/reference/events/link_shared): a message with links to the app's unfurl domain. */
export function linkShared(input: LinkSharedInput): types.LinkSharedEvent {
  const composer = input.source === 'composer';
  const ts = input.message_ts ?? nextEventTs();
  // While composing, Slack names neither the channel nor a message.
  const channel = composer ? 'COMPOSER' : input.channel;
  const messageTs = composer ? `${input.user}-${randomUUID()}` : ts;
  return {
    type: 'link_shared',
    channel,
    is_bot_user_member: input.is_bot_user_member ?? true,
    user: input.user,
    message_ts: messageTs,
    ...(input.thread_ts ? { thread_ts: input.thread_ts } : {}),
    unfurl_id: `${channel}.${messageTs}.${randomUUID().replace(/-/g, '')}`,
    source: input.source ?? 'conversations_history',
    links: input.urls.map((url) => ({ domain: new URL(url).hostname, url })),
    event_ts: nextEventTs(),
  };
}

/** An `entity_details_requested` event (https://docs.slack.dev/reference/events/entity_details_requested): someone opened a Work Object's details. */
export function entityDetailsRequested(input: {
  user: string;
  url: string;
  channel?: string;
  message_ts?: string;
  external_ref?: { id: string; type?: string };
}): Extract<types.SlackEvent, { type: 'entity_details_requested' }> {
  const u = new URL(input.url);
  return {
    type: 'entity_details_requested',
    user: input.user,
    trigger_id: triggerId(),
    link: { url: input.url, domain: u.hostname },
    entity_url: input.url,
    app_unfurl_url: input.url,
    user_locale: 'en-US',
    event_ts: nextEventTs(),
    ...(input.external_ref ? { external_ref: input.external_ref } : {}),
    ...(input.channel ? { channel: input.channel, message_ts: input.message_ts ?? nextEventTs() } : {}),
  };
}

/**
 * A `block_actions` payload from a button of a Work Object preview (a link unfurl), form-encoded as `payload=<json>`:
 * the container is the unfurl (`message_attachment`, with the entity's URL and reference), and no message is sent.
 */
export function unfurlBlockActions(input: {
  user: string;
  channel: string;
  message_ts: string;
  url: string;
  external_ref: { id: string; type?: string };
  action: ActionInput;
}): SlackRequestBody<BlockAction<ButtonAction>> {
  const team = { id: SLACK_DEFAULTS.teamId, domain: SLACK_DEFAULTS.teamDomain };
  const payload = {
    type: 'block_actions',
    user: { id: input.user, username: input.user.toLowerCase(), name: input.user.toLowerCase(), team_id: team.id },
    api_app_id: SLACK_DEFAULTS.appId,
    token: SLACK_DEFAULTS.verificationToken,
    container: {
      type: 'message_attachment',
      message_ts: input.message_ts,
      channel_id: input.channel,
      is_ephemeral: false,
      attachment_id: 1,
      is_app_unfurl: true,
      app_unfurl_url: input.url,
      entity_url: input.url,
      external_ref: input.external_ref,
    },
    trigger_id: triggerId(),
    team,
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: input.channel, name: 'general' },
    app_unfurl: {
      id: 1,
      bot_id: SLACK_DEFAULTS.botId,
      bot_team_id: team.id,
      app_unfurl_url: input.url,
      is_app_unfurl: true,
    },
    response_url: `https://hooks.slack.com/actions/${team.id}/1000000002/standinresponseurl`,
    actions: [
      {
        type: 'button',
        action_id: input.action.action_id,
        block_id: input.action.block_id ?? 'wo',
        text: { type: 'plain_text', text: input.action.text ?? input.action.action_id, emoji: true },
        ...(input.action.value !== undefined ? { value: input.action.value } : {}),
        action_ts: nextEventTs(),
      },
    ],
  };
  return interactive(payload as unknown as BlockAction<ButtonAction>);
}

export interface SlashCommandInput {
  command: string;
  text?: string;
  user_id: string;
  channel_id: string;
  team_id?: string;
  response_url?: string;
  trigger_id?: string;
  user_name?: string;
  channel_name?: string;
  team_domain?: string;
  api_app_id?: string;
}

/** A slash command invocation: plain form fields (no `payload=` wrapper). */
export function slashCommand(input: SlashCommandInput): SlackRequestBody<SlashCommand> {
  const teamId = input.team_id ?? SLACK_DEFAULTS.teamId;
  const fields: SlashCommand = {
    token: SLACK_DEFAULTS.verificationToken,
    team_id: teamId,
    team_domain: input.team_domain ?? SLACK_DEFAULTS.teamDomain,
    channel_id: input.channel_id,
    channel_name: input.channel_name ?? (input.channel_id.startsWith('D') ? 'directmessage' : 'general'),
    user_id: input.user_id,
    user_name: input.user_name ?? input.user_id.toLowerCase(),
    command: input.command,
    text: input.text ?? '',
    api_app_id: input.api_app_id ?? SLACK_DEFAULTS.appId,
    is_enterprise_install: 'false',
    response_url: input.response_url ?? `https://hooks.slack.com/commands/${teamId}/1000000002/standinresponseurl`,
    trigger_id: input.trigger_id ?? triggerId(),
  };
  return form(fields, fields as Record<string, string>);
}

/** The one-time `url_verification` challenge Slack sends when the events URL is configured. */
export function urlVerification(
  challenge: string,
): SlackRequestBody<{ token: string; challenge: string; type: 'url_verification' }> {
  return json({ token: SLACK_DEFAULTS.verificationToken, challenge, type: 'url_verification' as const });
}
