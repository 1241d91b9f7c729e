// Chat platforms (Slack, Teams, email): identities, installs, channels, bridges, reactions, listeners, mail threads.
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { MailParties } from '../../../surfaces/email/mail-repo.ts';
import { id, ts } from './columns.ts';
import { agents, conversations, messages, people, workspaces } from './core.ts';

/**
 * A person as a chat platform knows them (a Slack user in a team, a Teams user
 * in a tenant), with the profile last read from the platform. `person_id` is
 * set once the account is linked; until then they talk to agents as a guest.
 */
export const externalIdentities = pgTable(
  'external_identities',
  {
    id: id(),
    surface: text('surface').notNull(),
    tenantId: text('tenant_id').notNull(),
    externalUserId: text('external_user_id').notNull(),
    personId: uuid('person_id').references(() => people.id, { onDelete: 'set null' }),
    displayName: text('display_name').notNull().default(''),
    email: text('email'),
    avatarUrl: text('avatar_url'),
    profile: jsonb('profile').$type<Record<string, unknown>>(),
    profileFetchedAt: ts('profile_fetched_at'),
    linkedAt: ts('linked_at'),
    /** When the app first asked them to link (a DM with a link); it asks unprompted only once. */
    linkPromptedAt: ts('link_prompted_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('external_identities_uq').on(t.surface, t.tenantId, t.externalUserId),
    index('external_identities_person_idx').on(t.personId),
  ],
);

/**
 * A Slack team the app is installed in (the workspace it maps to is in
 * `surface_tenants`). The bot token is sealed with SWITCHBOARD_SECRET;
 * null means the single-workspace token from SLACK_BOT_TOKEN is used.
 */
export const slackInstallations = pgTable('slack_installations', {
  teamId: text('team_id').primaryKey(),
  enterpriseId: text('enterprise_id'),
  teamName: text('team_name').notNull().default(''),
  botTokenSealed: text('bot_token_sealed'),
  botUserId: text('bot_user_id').notNull(),
  botId: text('bot_id').notNull(),
  appId: text('app_id'),
  scopes: text('scopes').notNull().default(''),
  installedBy: text('installed_by'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Which Switchboard workspace a chat team or tenant maps to (a Slack team, a
 * Teams tenant): one shape for every surface. No row: not connected.
 */
export const surfaceTenants = pgTable(
  'surface_tenants',
  {
    surface: text('surface').notNull(),
    tenantId: text('tenant_id').notNull(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.surface, t.tenantId] }), index('surface_tenants_ws_idx').on(t.workspaceId)],
);

/**
 * The agent a chat user's DMs with the app go to (scope 'user') and a
 * channel's mentions that name nobody (scope 'channel'), for every surface.
 */
export const defaultAgents = pgTable(
  'default_agents',
  {
    surface: text('surface').notNull(),
    tenantId: text('tenant_id').notNull(),
    scope: text('scope', { enum: ['user', 'channel'] }).notNull(),
    scopeId: text('scope_id').notNull(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    setBy: text('set_by'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.surface, t.tenantId, t.scope, t.scopeId] })],
);

/**
 * A Teams user as the bot sees them: their Bot Framework id (`29:…`, needed for
 * card refresh and proactive chats), their personal chat with the bot once
 * there is one (the agent it talks to is in `default_agents`).
 */
export const teamsUsers = pgTable(
  'teams_users',
  {
    tenantId: text('tenant_id').notNull(),
    aadObjectId: text('aad_object_id').notNull(),
    userId: text('user_id').notNull(),
    name: text('name').notNull().default(''),
    personalConversationId: text('personal_conversation_id'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.aadObjectId] })],
);

/** The last Bot Framework conversation reference seen for each Teams conversation, for proactive posts. */
export const teamsConversationReferences = pgTable(
  'teams_conversation_references',
  {
    conversationId: text('conversation_id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    conversationType: text('conversation_type').notNull(),
    reference: jsonb('reference').$type<Record<string, unknown>>().notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('teams_conversation_references_tenant_idx').on(t.tenantId)],
);

/**
 * Who is in a chat channel (a Slack channel, later a Teams channel), cached
 * from the platform (`conversations.members`) so every conversation's audience
 * can be computed without asking the platform each time. A row in
 * `surface_channels` says the member list is complete as of `fetched_at`;
 * join and leave events keep it current in between.
 */
export const surfaceChannels = pgTable(
  'surface_channels',
  {
    surface: text('surface').notNull(),
    tenantId: text('tenant_id').notNull(),
    channelId: text('channel_id').notNull(),
    fetchedAt: ts('fetched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.surface, t.tenantId, t.channelId] })],
);

export const surfaceChannelMembers = pgTable(
  'surface_channel_members',
  {
    surface: text('surface').notNull(),
    tenantId: text('tenant_id').notNull(),
    channelId: text('channel_id').notNull(),
    externalUserId: text('external_user_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.surface, t.tenantId, t.channelId, t.externalUserId] })],
);

/**
 * Private content an agent took in (a document it read, messages from a
 * restricted channel), kept briefly so a later post into a conversation with a
 * wider audience can be refused. `for_conversation_id` is the conversation the
 * agent named when reading, if any.
 */
export const audienceReads = pgTable(
  'audience_reads',
  {
    id: id(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    source: text('source', { enum: ['document', 'conversation'] }).notNull(),
    sourceId: text('source_id').notNull(),
    label: text('label').notNull(),
    forConversationId: uuid('for_conversation_id'),
    readAt: ts('read_at').notNull(),
  },
  (t) => [index('audience_reads_agent_idx').on(t.agentId, t.workspaceId, t.readAt)],
);

/**
 * A web chat channel linked to a Slack or a Teams channel: every side mirrors
 * the others. One bridge per surface per web channel, and an outside channel
 * is bridged to one web channel at most. `external_ref` is the address the
 * surface posts to; `allow_private` is the owner's consent to mirror a
 * restricted web channel into a wider audience.
 */
export const bridges = pgTable(
  'bridges',
  {
    id: id(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    surface: text('surface').notNull(),
    tenantId: text('tenant_id').notNull(),
    externalChannelId: text('external_channel_id').notNull(),
    externalRef: jsonb('external_ref').$type<Record<string, string>>().notNull(),
    title: text('title').notNull().default(''),
    allowPrivate: boolean('allow_private').notNull().default(false),
    createdBy: uuid('created_by').references(() => people.id, { onDelete: 'set null' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('bridges_external_uq').on(t.surface, t.tenantId, t.externalChannelId),
    uniqueIndex('bridges_channel_surface_uq').on(t.channelId, t.surface),
    index('bridges_ws_idx').on(t.workspaceId),
  ],
);

/**
 * The persistent message map of a bridge: a web message and its counterpart on
 * the bridged side (a Slack ts, a Teams activity id), unique both ways, so
 * threads, edits, deletes and reactions map after any restart. `inbound` rows
 * record messages written on that side; the others are our mirrors, whose
 * `post_started_at` makes the post exactly-once (see bridges/mirror-out.ts).
 */
export const bridgeMessages = pgTable(
  'bridge_messages',
  {
    bridgeId: uuid('bridge_id')
      .notNull()
      .references(() => bridges.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    externalId: text('external_id'),
    inbound: boolean('inbound').notNull(),
    postStartedAt: ts('post_started_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.bridgeId, t.messageId] }),
    uniqueIndex('bridge_messages_external_uq').on(t.bridgeId, t.externalId),
    // A message's mirrors (its edits, deletions and reactions follow them), and what goes when it is deleted.
    index('bridge_messages_message_idx').on(t.messageId),
  ],
);

/**
 * Reactions to messages, from any side: `reactor` is `agent:<id>` for a person
 * in the web chat, `identity:<id>` for a Slack or Teams user; `emoji` is a
 * short name (`thumbsup`).
 */
export const messageReactions = pgTable(
  'message_reactions',
  {
    messageId: uuid('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    emoji: text('emoji').notNull(),
    reactor: text('reactor').notNull(),
    reactorName: text('reactor_name').notNull().default(''),
    surface: text('surface').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.emoji, t.reactor] })],
);

/**
 * Agents a channel lets listen (off until an owner turns it on): each hears
 * every message of the channel, flagged overheard. `channel_id` is the web
 * channel's conversation id, or the Slack or Teams channel id.
 */
export const channelListeners = pgTable(
  'channel_listeners',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    surface: text('surface').notNull(),
    channelId: text('channel_id').notNull(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    addedBy: uuid('added_by'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.surface, t.channelId, t.agentId] }),
    index('channel_listeners_agent_idx').on(t.agentId),
    // Whether anyone listens in a channel, asked for every top-level message there.
    index('channel_listeners_channel_idx').on(t.surface, t.channelId),
  ],
);

/**
 * The mails of email threads (received, and sent by agents), one row per Message-ID in a workspace: who was on each
 * (an agent's answer goes to them), the Message-IDs it referred to (replies thread) and the thread's first mail
 * (`root_mail_id`, from which the conversation's key is made). A sent mail's row is written before the relay is
 * called, `sent_at` once it accepted: a retried send is recognised by its Message-ID. Rows go with their message.
 */
export const emailMails = pgTable(
  'email_mails',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    mailId: text('mail_id').notNull(),
    messageId: uuid('message_id').references(() => messages.id, { onDelete: 'cascade' }),
    rootMailId: text('root_mail_id').notNull(),
    direction: text('direction').$type<'in' | 'out'>().notNull(),
    parties: jsonb('parties').$type<MailParties>().notNull(),
    refs: jsonb('refs').$type<string[]>().notNull(),
    subject: text('subject').notNull().default(''),
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    sentAt: ts('sent_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.mailId] }),
    index('email_mails_root_idx').on(t.workspaceId, t.rootMailId, t.createdAt),
    index('email_mails_message_idx').on(t.messageId),
  ],
);
