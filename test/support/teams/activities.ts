// Activities as Teams POSTs them to a bot, shaped after Teams' documented and
// recorded payloads (a channel message with an @mention, a personal message, a
// group chat message, an `adaptiveCard/action` invoke from Action.Execute, an
// Action.Submit fallback, the `message/submitAction` invoke of the feedback
// buttons, and the conversationUpdate sent when the bot is added). They are plain JSON, as on the wire; the bot under test parses them
// with the real SDK. Every builder needs the stand-in (for `serviceUrl`, the
// bot's app id and the tenant) and takes overrides for anything else.
import { randomUUID } from 'node:crypto';
import {
  TEAMS_DEFAULTS,
  botAccountId,
  personalConversationId,
  threadConversationId,
  type TeamsUserSeed,
} from './defaults.ts';
import { nextActivityId } from './connector.ts';

/** What a builder needs from the stand-in (a TeamsStandin fits). */
export interface TeamsTarget {
  serviceUrl: string;
  appId: string;
  userTenantId: string;
}

export interface WireAccount {
  id: string;
  name?: string;
  aadObjectId?: string;
}

export interface WireConversation {
  id: string;
  conversationType: 'personal' | 'groupChat' | 'channel';
  tenantId: string;
  isGroup?: boolean;
  name?: string;
}

export interface TeamsActivity {
  type: 'message' | 'invoke' | 'conversationUpdate' | 'messageUpdate' | 'messageDelete' | 'messageReaction';
  id: string;
  timestamp: string;
  localTimestamp: string;
  channelId: 'msteams';
  serviceUrl: string;
  from: WireAccount;
  recipient: WireAccount;
  conversation: WireConversation;
  channelData: Record<string, unknown>;
  locale: string;
  localTimezone: string;
  text?: string;
  textFormat?: 'plain';
  entities?: Array<Record<string, unknown>>;
  attachments?: Array<{ contentType: string; content: unknown }>;
  replyToId?: string;
  name?: string;
  value?: unknown;
  membersAdded?: WireAccount[];
  [key: string]: unknown;
}

/** Where a message or a card click happens. */
export type Place =
  /** A channel post; `threadRootId` = the root message of the reply chain (default: this message starts one). */
  | { kind: 'channel'; channelId?: string; teamId?: string; threadRootId?: string }
  /** A one-to-one chat: with the bot unless `chatId` names a chat between two people. */
  | { kind: 'personal'; chatId?: string }
  | { kind: 'groupChat'; chatId?: string };

interface CommonOptions {
  /** Who acts (default Alice). */
  from?: TeamsUserSeed;
  /** The activity id (default a fresh one). */
  id?: string;
}

const clientInfo = {
  type: 'clientInfo',
  locale: 'en-US',
  country: 'US',
  platform: 'Web',
  timezone: 'America/Los_Angeles',
};

function account(user: TeamsUserSeed): WireAccount {
  return { id: user.id, name: user.name, aadObjectId: user.aadObjectId };
}

function bot(target: TeamsTarget): WireAccount {
  return { id: botAccountId(target.appId), name: TEAMS_DEFAULTS.botName };
}

/** The bot's @mention as Teams writes it in `text` and in the mention entity. */
export function botMentionText(): string {
  return `<at>${TEAMS_DEFAULTS.botName}</at>`;
}

function conversationAndChannelData(target: TeamsTarget, place: Place, from: TeamsUserSeed, activityId: string) {
  const tenant = { id: target.userTenantId };
  switch (place.kind) {
    case 'channel': {
      const channelId = place.channelId ?? TEAMS_DEFAULTS.channelId;
      const teamId = place.teamId ?? TEAMS_DEFAULTS.teamId;
      return {
        conversation: {
          id: threadConversationId(channelId, place.threadRootId ?? activityId),
          isGroup: true,
          conversationType: 'channel' as const,
          tenantId: target.userTenantId,
        },
        channelData: {
          teamsChannelId: channelId,
          teamsTeamId: teamId,
          channel: { id: channelId },
          team: { id: teamId },
          tenant,
        },
      };
    }
    case 'groupChat':
      return {
        conversation: {
          id: place.chatId ?? TEAMS_DEFAULTS.groupChatId,
          isGroup: true,
          conversationType: 'groupChat' as const,
          tenantId: target.userTenantId,
        },
        channelData: { tenant },
      };
    case 'personal':
      return {
        conversation: {
          id: place.chatId ?? personalConversationId(from.id, target.appId),
          conversationType: 'personal' as const,
          tenantId: target.userTenantId,
        },
        channelData: { tenant },
      };
  }
}

function envelope(target: TeamsTarget, place: Place, options: CommonOptions) {
  const from = options.from ?? TEAMS_DEFAULTS.users.alice;
  const id = options.id ?? nextActivityId();
  const now = new Date();
  return {
    id,
    timestamp: now.toISOString(),
    localTimestamp: now.toISOString().replace('Z', '+00:00'),
    channelId: 'msteams' as const,
    serviceUrl: target.serviceUrl,
    from: account(from),
    recipient: bot(target),
    ...conversationAndChannelData(target, place, from, id),
    locale: 'en-US',
    localTimezone: 'America/Los_Angeles',
  };
}

export interface MessageOptions extends CommonOptions {
  /** The words after the bot's @mention (or the whole text in a personal chat). */
  text: string;
}

function message(target: TeamsTarget, place: Place, options: MessageOptions, mention: boolean): TeamsActivity {
  const at = botMentionText();
  const text = mention ? `${at} ${options.text}` : options.text;
  const html = mention
    ? `<p><span itemtype="http://schema.skype.com/Mention" itemscope="" itemid="0">${TEAMS_DEFAULTS.botName}</span>&nbsp;${options.text}</p>`
    : `<p>${options.text}</p>`;
  return {
    type: 'message',
    ...envelope(target, place, options),
    text,
    textFormat: 'plain',
    entities: mention ? [{ type: 'mention', mentioned: bot(target), text: at }, clientInfo] : [clientInfo],
    attachments: [{ contentType: 'text/html', content: html }],
  };
}

/** A channel message that @mentions the bot: `<at>Switchboard</at> <text>`. Starts a reply chain unless `threadRootId` is given. */
export function channelMention(
  target: TeamsTarget,
  options: MessageOptions & { channelId?: string; teamId?: string; threadRootId?: string },
): TeamsActivity {
  const { channelId, teamId, threadRootId, ...rest } = options;
  return message(target, { kind: 'channel', channelId, teamId, threadRootId }, rest, true);
}

/**
 * A channel message as a bot with the ChannelMessage.Read.Group permission
 * receives it: without the bot's mention unless `mention`. Starts a reply chain
 * unless `threadRootId` is given.
 */
export function channelMessage(
  target: TeamsTarget,
  options: MessageOptions & { channelId?: string; teamId?: string; threadRootId?: string; mention?: boolean },
): TeamsActivity {
  const { channelId, teamId, threadRootId, mention = false, ...rest } = options;
  return message(target, { kind: 'channel', channelId, teamId, threadRootId }, rest, mention);
}

type ChangeOptions = CommonOptions & { id: string; channelId?: string; threadRootId?: string };

/**
 * What Teams sends when someone edits a channel message (`messageUpdate`, eventType
 * `editMessage`): the edited message's id and conversation, with its new text.
 */
export function channelMessageEdited(target: TeamsTarget, options: ChangeOptions & { text: string }): TeamsActivity {
  const { channelId, threadRootId, ...rest } = options;
  const edited = message(target, { kind: 'channel', channelId, threadRootId: threadRootId ?? options.id }, rest, false);
  return { ...edited, type: 'messageUpdate', channelData: { ...edited.channelData, eventType: 'editMessage' } };
}

/** What Teams sends when someone deletes a channel message (`messageDelete`, eventType `softDeleteMessage`). */
export function channelMessageDeleted(target: TeamsTarget, options: ChangeOptions): TeamsActivity {
  const { channelId, threadRootId, ...rest } = options;
  const base = envelope(target, { kind: 'channel', channelId, threadRootId: threadRootId ?? options.id }, rest);
  return {
    type: 'messageDelete',
    ...base,
    channelData: { ...base.channelData, eventType: 'softDeleteMessage' },
    entities: [clientInfo],
  };
}

/** Teams' reaction types (the six a channel message offers). */
export type TeamsReactionType = 'like' | 'heart' | 'laugh' | 'surprised' | 'sad' | 'angry';

/**
 * What Teams sends when someone reacts to a channel message, or takes the
 * reaction back (`removed`): a `messageReaction` whose `replyToId` is the
 * reacted message (`messageId`), with `reactionsAdded` or `reactionsRemoved`.
 */
export function channelReaction(
  target: TeamsTarget,
  options: CommonOptions & {
    messageId: string;
    type: TeamsReactionType | string;
    removed?: boolean;
    channelId?: string;
    threadRootId?: string;
  },
): TeamsActivity {
  const { channelId, threadRootId, messageId, type, removed = false, ...rest } = options;
  const base = envelope(target, { kind: 'channel', channelId, threadRootId: threadRootId ?? messageId }, rest);
  const reactions = [{ type }];
  return {
    type: 'messageReaction',
    ...base,
    replyToId: messageId,
    channelData: { ...base.channelData, legacy: { replyToId: messageId } },
    ...(removed ? { reactionsRemoved: reactions } : { reactionsAdded: reactions }),
  };
}

/** A message in the personal (1:1) chat with the bot: no mention needed. */
export function personalMessage(target: TeamsTarget, options: MessageOptions): TeamsActivity {
  return message(target, { kind: 'personal' }, options, false);
}

/** A group chat message, @mentioning the bot unless `mention: false` (sent to the bot through the ChatMessage.Read.Chat RSC permission). */
export function groupChatMessage(
  target: TeamsTarget,
  options: MessageOptions & { chatId?: string; mention?: boolean },
): TeamsActivity {
  const { chatId, mention = true, ...rest } = options;
  return message(target, { kind: 'groupChat', chatId }, rest, mention);
}

export interface CardActionOptions extends CommonOptions {
  /** Action.Execute's verb, e.g. 'approve'. */
  verb: string;
  data?: Record<string, unknown>;
  /** The id of the bot's message holding the card (Teams puts it in `replyToId`). */
  cardActivityId: string;
  /** Where the card is (default: the personal chat). */
  place?: Place;
  /** 'manual' for a click, 'automatic' for a `refresh` Teams triggers itself. */
  trigger?: 'manual' | 'automatic';
}

/** The `adaptiveCard/action` invoke Teams sends when someone clicks an Action.Execute button (or a card refreshes). */
export function adaptiveCardAction(target: TeamsTarget, options: CardActionOptions): TeamsActivity {
  const place = options.place ?? { kind: 'personal' };
  return {
    type: 'invoke',
    name: 'adaptiveCard/action',
    ...envelope(target, place, options),
    replyToId: options.cardActivityId,
    value: {
      action: { type: 'Action.Execute', id: randomUUID(), verb: options.verb, data: options.data ?? {} },
      trigger: options.trigger ?? 'manual',
    },
    entities: [clientInfo],
  };
}

export interface FeedbackOptions extends CommonOptions {
  /** The id of the bot's message the buttons are under (Teams puts it in `replyToId`). */
  messageId: string;
  reaction: 'like' | 'dislike';
  /** What the person wrote in the feedback form. */
  text?: string;
  /** Where the message is (default: the personal chat). */
  place?: Place;
}

/** The `message/submitAction` invoke Teams sends when someone submits the feedback form of a 👍/👎 button. */
export function feedbackSubmit(target: TeamsTarget, options: FeedbackOptions): TeamsActivity {
  const place = options.place ?? { kind: 'personal' };
  return {
    type: 'invoke',
    name: 'message/submitAction',
    ...envelope(target, place, options),
    replyToId: options.messageId,
    value: {
      actionName: 'feedback',
      actionValue: {
        reaction: options.reaction,
        feedback: JSON.stringify({ feedbackText: options.text ?? '' }),
      },
    },
    entities: [clientInfo],
  };
}

/**
 * The `composeExtension/queryLink` invoke Teams sends when someone pastes a link to the app's domain in the compose box
 * (https://learn.microsoft.com/microsoftteams/platform/messaging-extensions/how-to/link-unfurling), in the conversation
 * being written in.
 */
export function queryLink(target: TeamsTarget, options: CommonOptions & { url: string; place?: Place }): TeamsActivity {
  const base = envelope(target, options.place ?? { kind: 'channel' }, options);
  return {
    type: 'invoke',
    name: 'composeExtension/queryLink',
    ...base,
    channelData: { ...base.channelData, source: { name: 'compose' } },
    value: { url: options.url },
    entities: [clientInfo],
  };
}

/** What older Teams clients send for the Action.Submit fallback: a message with the button's data in `value` and no text. */
export function cardSubmit(
  target: TeamsTarget,
  options: Omit<CardActionOptions, 'verb' | 'trigger'> & { data: Record<string, unknown> },
): TeamsActivity {
  const place = options.place ?? { kind: 'personal' };
  return {
    type: 'message',
    ...envelope(target, place, options),
    replyToId: options.cardActivityId,
    value: options.data,
    entities: [clientInfo],
  };
}

/** The conversationUpdate Teams sends when the bot is added to a team, a group chat, or someone's personal scope. */
export function botAdded(
  target: TeamsTarget,
  options: CommonOptions & { scope: 'team' | 'groupChat' | 'personal' },
): TeamsActivity {
  const tenant = { id: target.userTenantId };
  const base = envelope(target, { kind: 'personal' }, options);
  const added = { membersAdded: [{ id: botAccountId(target.appId) }] };
  switch (options.scope) {
    case 'team':
      return {
        type: 'conversationUpdate',
        ...base,
        ...added,
        conversation: {
          id: TEAMS_DEFAULTS.teamId,
          isGroup: true,
          conversationType: 'channel',
          tenantId: target.userTenantId,
        },
        channelData: {
          team: { id: TEAMS_DEFAULTS.teamId, name: TEAMS_DEFAULTS.teamName, aadGroupId: TEAMS_DEFAULTS.teamAadGroupId },
          eventType: 'teamMemberAdded',
          tenant,
          settings: { selectedChannel: { id: TEAMS_DEFAULTS.generalChannelId } },
        },
      };
    case 'groupChat':
      return {
        type: 'conversationUpdate',
        ...base,
        ...added,
        conversation: {
          id: TEAMS_DEFAULTS.groupChatId,
          isGroup: true,
          conversationType: 'groupChat',
          tenantId: target.userTenantId,
        },
        channelData: { tenant },
      };
    case 'personal':
      return { type: 'conversationUpdate', ...base, ...added, channelData: { tenant } };
  }
}
