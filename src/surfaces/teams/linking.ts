// Account linking in Teams, rendered from the core's LinkService: a card in
// the person's personal chat with the bot ("Link your account" opens the
// single-use sign-in link, "Send me a new link" replaces it), sent the first
// time an unlinked person talks to an agent, when a workspace requires linking,
// or on "link"; "unlink" removes the link; `teams.link.done` confirms in the chat.
import type { ConversationParameters, TurnContext } from 'botbuilder';
import { isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import { PermanentFailure } from '../../core/errors.ts';
import { linkReplies, type LinkWording } from '../../core/linking/link-rules.ts';
import type { LinkPrompt, PromptReason } from '../../core/linking/link-service.ts';
import type { JobHandler } from '../../core/ports.ts';
import type { ExternalIdentity, ExternalKey } from '../../core/surfaces/surface-ports.ts';
import type { TeamsAddress } from './thread-id.ts';
import { adaptiveCard, cardActivity, executeAction, type Card } from './cards.ts';
import { postActivity } from './connector.ts';
import { classifyTeamsError, loggable } from './errors.ts';
import { postOnce } from './post-once.ts';
import { TEAMS, TEAMS_LINK_DONE } from './topics.ts';
import type { TeamsRuntime } from './runtime.ts';

/** How Teams speaks of account links: the personal chat with the bot takes `link` and `unlink`. */
export const TEAMS_LINK_WORDING: LinkWording = {
  app: 'Microsoft Teams',
  tenant: 'tenant',
  newLink: 'Get a new one by writing "link" to Switchboard in your personal chat in Teams.',
  ask: 'write "link" to Switchboard in your personal chat in Teams',
  unlink: 'writing "unlink" to Switchboard in your personal chat in Teams',
};
/** What Teams says about a person's link: the personal chat takes "link" and "unlink". */
const REPLIES = linkReplies(TEAMS.label, {
  link: 'write "link" to link it',
  unlink: 'write "unlink" to remove the link',
});
/** The data marking the "Send me a new link" button. */
export const LINK = 'link';
/** The Bot Connector's OAuth scope (ToChannelFromBotOAuthScope) in the public cloud. */
const CONNECTOR_SCOPE = 'https://api.botframework.com';

const keyOf = (tenant: string, aadObjectId: string): ExternalKey => ({
  surface: 'teams',
  tenantId: tenant,
  externalUserId: aadObjectId,
});

/** The prompt as a card: its text, a button opening the link, one for a fresh link, and when it expires. */
export function linkCard(p: LinkPrompt): Card {
  const text = p.text.replace(/\*([^*\n]+)\*/g, '**$1**');
  return adaptiveCard(
    [
      { type: 'TextBlock', text, wrap: true },
      {
        type: 'TextBlock',
        text: `This link expires at ${p.expiresAt.toISOString().slice(11, 16)} UTC.`,
        isSubtle: true,
        size: 'Small',
        wrap: true,
      },
    ],
    {
      actions: [
        { type: 'Action.OpenUrl', title: p.button, url: p.url, style: 'positive' },
        executeAction(p.again, 'linkAgain', { sb: LINK }),
      ],
      fallbackText: `${p.button}: ${p.url}`,
    },
  );
}

/**
 * The person's personal chat with the bot: the one they have, or one the bot
 * starts (Teams allows it where the app is installed for them); null when
 * the bot never saw them or Teams refuses.
 */
export async function personalChat(
  rt: TeamsRuntime,
  tenant: string,
  aadObjectId: string,
): Promise<TeamsAddress | null> {
  const user = await rt.users.get(tenant, aadObjectId);
  if (!user) return null;
  if (user.personalConversationId) {
    const reference = await rt.references.get(user.personalConversationId);
    if (typeof reference?.serviceUrl === 'string')
      return { tenant, conversation: user.personalConversationId, type: 'personal', serviceUrl: reference.serviceUrl };
  }
  const serviceUrl = await rt.references.serviceUrlOf(tenant);
  if (!rt.adapter || !rt.settings.appId || !serviceUrl) return null;
  const parameters = {
    isGroup: false,
    bot: { id: `28:${rt.settings.appId}`, name: 'Switchboard' },
    members: [{ id: user.userId, name: user.name }],
    tenantId: tenant,
    channelData: { tenant: { id: tenant } },
  } as unknown as ConversationParameters;
  let conversationId: string | null = null;
  try {
    const scope = String(rt.settings.authConfig?.ToChannelFromBotOAuthScope ?? CONNECTOR_SCOPE);
    await rt.adapter.createConversationAsync(
      rt.settings.appId,
      'msteams',
      serviceUrl,
      scope,
      parameters,
      async (context) => {
        conversationId = context.activity.conversation.id;
      },
    );
  } catch (err) {
    rt.logger.warn(
      { err: loggable(err), tenant, reason: classifyTeamsError(err).reason },
      'could not start a personal chat in Teams',
    );
    return null;
  }
  if (!conversationId) return null;
  const address: TeamsAddress = { tenant, conversation: conversationId, type: 'personal', serviceUrl };
  await rt.users.seen({
    tenantId: tenant,
    aadObjectId,
    userId: user.userId,
    name: user.name,
    personalConversationId: conversationId,
  });
  await rt.references.put({
    conversationId,
    tenantId: tenant,
    conversationType: 'personal',
    reference: {
      channelId: 'msteams',
      serviceUrl,
      conversation: { id: conversationId, conversationType: 'personal', tenantId: tenant },
      bot: parameters.bot,
      user: { id: user.userId },
    },
  });
  return address;
}

/** A fresh link for the identity, as a card. */
async function offerCard(rt: TeamsRuntime, identity: ExternalIdentity, reason: PromptReason): Promise<Card> {
  return linkCard((await rt.core.links.offer(identity, { reason })).prompt);
}

/**
 * Sends the link card to the person's personal chat (the core decides it is
 * the first time). A failure is logged, never in the way of the message
 * itself; they can still write "link".
 */
export async function sendLinkCard(
  rt: TeamsRuntime,
  identity: ExternalIdentity,
  reason: PromptReason,
): Promise<boolean> {
  try {
    const chat = await personalChat(rt, identity.tenantId, identity.externalUserId);
    if (!chat) return false;
    await postActivity(rt, chat, cardActivity(await offerCard(rt, identity, reason), 'Link your account'));
    return true;
  } catch (err) {
    rt.logger.warn(
      { err: loggable(err), identityId: identity.id },
      'could not send the Teams link card; the person can write "link"',
    );
    return false;
  }
}

/** "link" and "unlink" in the personal chat, answered there. */
export async function linkCommand(
  rt: TeamsRuntime,
  context: TurnContext,
  tenant: string,
  command: 'link' | 'unlink',
): Promise<void> {
  const aad = context.activity.from.aadObjectId;
  const say = (text: string) => context.sendActivity({ type: 'message', text, textFormat: 'markdown' });
  if (!aad) return void (await say('Teams did not say who you are, so this account cannot be linked.'));
  const key = keyOf(tenant, aad);
  if (command === 'unlink') {
    const done = await rt.core.links.unlinkChatUser(key);
    return void (await say(done ? REPLIES.unlinked(done.handle) : REPLIES.notLinked()));
  }
  const { identity, person } = await rt.core.links.whoIs(key);
  if (person) return void (await say(REPLIES.linkedAs(person.handle)));
  await context.sendActivity(
    cardActivity(await offerCard(rt, identity ?? (await rt.core.identities.upsert(key)), 'asked'), 'Link your account'),
  );
}

/** "Send me a new link": the card comes back with a fresh link (or says who they are linked as). */
export async function linkAgain(rt: TeamsRuntime, context: TurnContext, tenant: string): Promise<Card> {
  const aad = context.activity.from.aadObjectId;
  const { identity, person } = aad ? await rt.core.links.whoIs(keyOf(tenant, aad)) : { identity: null, person: null };
  if (person) return adaptiveCard([{ type: 'TextBlock', text: REPLIES.linkedAs(person.handle, true), wrap: true }]);
  if (!aad)
    return adaptiveCard([
      { type: 'TextBlock', text: 'Teams did not say who you are, so this account cannot be linked.', wrap: true },
    ]);
  return offerCard(rt, identity ?? (await rt.core.identities.upsert(keyOf(tenant, aad))), 'asked');
}

/** `teams.link.done`: "Linked as @alice" in the person's personal chat, delivered with retries like every Teams post. */
export function linkDoneHandler(rt: TeamsRuntime): JobHandler {
  return async (raw, ctx) => {
    const done = await rt.core.links.linkDone(TEAMS_LINK_DONE, raw);
    if (!done) return;
    const { identity, person } = done;
    const chat = await personalChat(rt, identity.tenantId, identity.externalUserId);
    if (!chat) throw new PermanentFailure('There is no personal chat with this Teams user to confirm the link in.');
    try {
      // Once per job (a later link is another job), through the post record (post-once.ts).
      await postOnce(
        rt,
        `link-done:${ctx.entryId}`,
        chat,
        {
          type: 'message',
          textFormat: 'markdown',
          text: REPLIES.linked(person),
        },
        ctx.signal,
      );
    } catch (e) {
      if (isDeliveryError(e)) throw jobErrorFor(e.failure);
      throw e;
    }
  };
}
