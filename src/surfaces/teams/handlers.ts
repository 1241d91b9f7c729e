// The bot behind POST /api/messages (botbuilder's TeamsActivityHandler): every
// turn records the conversation reference and who wrote; messages go to agents
// (mention the bot and name them in channels and group chats; the chosen agent
// in the personal chat); card clicks decide approvals or choose the agent;
// feedback on an agent's message goes to that agent.
import {
  TeamsActivityHandler,
  TurnContext,
  type AdaptiveCardInvokeResponse,
  type AdaptiveCardInvokeValue,
  type AppBasedLinkQuery,
  type InvokeResponse,
  type MessagingExtensionResponse,
} from 'botbuilder';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import { isRefusal } from '../../core/errors.ts';
import type { TeamsAddress } from './thread-id.ts';
import { APPROVAL } from './approval-card.ts';
import { approvalAction } from './approvals.ts';
import {
  adaptiveCard,
  agentList,
  cardActivity,
  CARD_RESPONSE_TYPE,
  handleOf,
  helpText,
  INTRO,
  noAgentNamed,
  notConnected,
  PICK_AGENT,
  pickerCard,
  talkableAgents,
  type Card,
} from './cards.ts';
import { loggable } from './errors.ts';
import { membersChanged } from './audience.ts';
import { followChange, followReactions, mirrorBridged } from './bridge.ts';
import { addressOf, authorOf, normalise, teamsPort, type TeamsTarget } from './inbound.ts';
import { LINK, linkAgain, linkCommand } from './linking.ts';
import { placeGone, teamOf, uninstalled } from './removals.ts';
import { workspaceOfTenant, type TeamsRuntime } from './runtime.ts';
import { teamsToMarkdown } from './format/in.ts';
import { commandOf, noticesWord } from './text.ts';
import { feedbackInvoke } from './feedback.ts';
import { QUERY_LINK } from './receiver.ts';
import { queryLink } from './unfurls.ts';

const say = (context: TurnContext, text: string) =>
  context.sendActivity({ type: 'message', text, textFormat: 'markdown' });

/** Runs a turn's work; a refusal from the core is told as its sentence, anything else is thrown so the job retries. */
async function guard(rt: TeamsRuntime, context: TurnContext, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (e) {
    // Anything but a refusal fails the inbound.teams job, which retries the activity (receiver.ts).
    if (!isRefusal(e)) throw e;
    await say(context, e.message).catch((err: unknown) =>
      rt.logger.warn({ err: loggable(err) }, 'could not tell the person about the refusal'),
    );
  }
}

/** Keeps the conversation reference (for proactive posts) and the Teams user (their `29:` id and personal chat). */
async function remember(rt: TeamsRuntime, context: TurnContext, address: TeamsAddress): Promise<void> {
  const { activity } = context;
  await rt.references.put({
    conversationId: address.conversation,
    tenantId: address.tenant,
    conversationType: address.type,
    reference: TurnContext.getConversationReference(activity) as Record<string, unknown>,
    teamId: address.type === 'channel' ? teamOf(activity) : null,
  });
  const from = activity.from;
  if (from?.aadObjectId && from.id?.startsWith('29:')) {
    await rt.users.seen({
      tenantId: address.tenant,
      aadObjectId: from.aadObjectId,
      userId: from.id,
      name: from.name ?? '',
      personalConversationId: address.type === 'personal' ? address.conversation : null,
    });
  }
}

/** The agent a user's personal chat talks to, if it is still in the workspace. */
async function chosenAgent(
  rt: TeamsRuntime,
  tenant: string,
  aadObjectId: string | undefined,
  directory: WorkspaceAgent[],
) {
  const id = aadObjectId
    ? await rt.core.defaultAgents.get({ surface: 'teams', tenantId: tenant, scope: 'user', scopeId: aadObjectId })
    : null;
  return talkableAgents(directory).find((d) => d.agent.id === id) ?? null;
}

async function targetOf(rt: TeamsRuntime, address: TeamsAddress): Promise<TeamsTarget | null> {
  const workspace = await workspaceOfTenant(rt, address.tenant);
  return workspace ? { workspace, directory: await rt.core.agents.directory(workspace) } : null;
}

async function onMessage(rt: TeamsRuntime, context: TurnContext, address: TeamsAddress): Promise<void> {
  const { activity } = context;
  const personal = address.type === 'personal';
  const read = teamsToMarkdown(activity, activity.recipient?.id);
  // A bridged channel mirrors every message written there, mentions included (bridge.ts).
  const mirrored = address.type === 'channel' ? await mirrorBridged(rt, context, address, read) : false;
  if (mirrored) return void (mirrored.length && (await say(context, mirrored.join('\n\n'))));
  // With the manifest's RSC permissions Teams sends every channel and group chat message. Only a mention (or the
  // personal chat) is written to the bot; another channel message may continue a reply chain agents took part in,
  // or be overheard by the channel's listeners, and the bot says nothing about it. Group chats have no listeners.
  const addressed = personal || read.mentionsBot;
  if (!addressed && address.type !== 'channel') return;
  const text = read.markdown;
  if (!text) return void (personal && (await say(context, helpText(true))));
  const target = await targetOf(rt, address);
  if (!target) return void (addressed && (await say(context, notConnected(address.tenant))));
  const { directory } = target;
  if (addressed && (await command(rt, context, address, text, target))) return;

  const outcome = await rt.core.inbound.receive(
    teamsPort(rt, context, address),
    normalise(activity, address, read, addressed),
    target,
  );
  switch (outcome.kind) {
    case 'ignored':
      return;
    case 'not-connected':
      return void (await say(context, notConnected(address.tenant)));
    case 'name-an-agent':
      return void (await say(context, noAgentNamed(directory)));
    case 'choose-agent':
      return void (await context.sendActivity(
        cardActivity(
          pickerCard(directory, null, 'Choose the agent your messages here go to, then write again.'),
          'Choose an agent',
        ),
      ));
    case 'handled':
      if (outcome.notices.length) await say(context, outcome.notices.join('\n\n'));
  }
}

/** A command written to the bot (`help`, `agents`, `link`, `unlink`, `notices off|on`), answered; false when the text is none. */
async function command(
  rt: TeamsRuntime,
  context: TurnContext,
  address: TeamsAddress,
  text: string,
  target: TeamsTarget,
): Promise<boolean> {
  const personal = address.type === 'personal';
  const word = commandOf(text);
  const notices = noticesWord(text);
  if (word === 'help') {
    await say(context, helpText(personal));
  } else if (word === 'agents' && !personal) {
    await say(context, `Agents here:\n\n${agentList(target.directory)}`);
  } else if (word === 'agents') {
    const chosen = await chosenAgent(rt, address.tenant, context.activity.from.aadObjectId, target.directory);
    await context.sendActivity(cardActivity(pickerCard(target.directory, chosen), 'Choose an agent'));
  } else if ((word === 'link' || word === 'unlink') && !personal) {
    await say(context, `Write "${word}" to me in our personal chat, so nobody else sees the link.`);
  } else if (word === 'link' || word === 'unlink') {
    await linkCommand(rt, context, address.tenant, word);
  } else if (notices !== null) {
    // The same stored choice as Slack's `/switchboard notices off`: a linked person's holds on every surface.
    const identity = await rt.core.identities.upsert({
      surface: 'teams',
      tenantId: address.tenant,
      externalUserId: authorOf(context.activity),
    });
    await say(
      context,
      await rt.core.intake.noticesCommand(identity, notices, { on: '"notices on"', off: '"notices off"' }),
    );
  } else {
    return false;
  }
  return true;
}

/** The personal chat's agent choice, from the picker card. */
async function pickAgent(
  rt: TeamsRuntime,
  context: TurnContext,
  address: TeamsAddress,
  data: Record<string, unknown>,
): Promise<Card> {
  const target = await targetOf(rt, address);
  if (!target) return adaptiveCard([{ type: 'TextBlock', text: notConnected(address.tenant), wrap: true }]);
  const aad = context.activity.from.aadObjectId;
  const picked = talkableAgents(target.directory).find((d) => d.agent.id === data.agentId);
  if (!picked || !aad)
    return pickerCard(target.directory, null, 'That agent is no longer in this workspace; choose another.');
  await rt.core.defaultAgents.set(
    { surface: 'teams', tenantId: address.tenant, scope: 'user', scopeId: aad },
    picked.agent.id,
    aad,
  );
  return pickerCard(
    target.directory,
    picked,
    `You are now talking to **${picked.agent.displayName}** (${handleOf(picked, target.directory)}). Messages you send me here go to it.`,
  );
}

const cardResponse = (card: Card): AdaptiveCardInvokeResponse => ({
  statusCode: 200,
  type: CARD_RESPONSE_TYPE,
  value: card as AdaptiveCardInvokeResponse['value'],
});

export class SwitchboardTeamsBot extends TeamsActivityHandler {
  constructor(private readonly rt: TeamsRuntime) {
    super();
    this.onTurn(async (context, next) => {
      const address = addressOf(context.activity);
      // A link pasted while writing comes from any chat, the bot's or not: it is no conversation to post to.
      if (address && context.activity.name !== QUERY_LINK)
        await remember(rt, context, address).catch((err: unknown) =>
          rt.logger.warn({ err: loggable(err) }, 'could not record a Teams conversation reference'),
        );
      await next();
    });
    this.onMessage(async (context, next) => {
      const address = addressOf(context.activity);
      const value = context.activity.value as Record<string, unknown> | undefined;
      if (address)
        await guard(rt, context, () =>
          value && typeof value.sb === 'string'
            ? this.submitted(context, address, value)
            : onMessage(rt, context, address),
        );
      await next();
    });
    // An edit or a delete follows the message to what Switchboard stored of it (a bridged channel's web copy included).
    for (const [on, kind] of [
      ['onTeamsMessageEditEvent', 'edit'],
      ['onTeamsMessageSoftDeleteEvent', 'delete'],
    ] as const) {
      this[on](async (context, next) => {
        const address = addressOf(context.activity);
        if (address) await followChange(rt, context, address, kind);
        await next();
      });
    }
    // Bridged channels: a reaction given or taken back follows to the web copy (one activity may carry both).
    this.onReactionsAdded(async (context, next) => {
      const address = addressOf(context.activity);
      if (address) await followReactions(rt, context, address, context.activity.reactionsAdded, true);
      await next();
    });
    this.onReactionsRemoved(async (context, next) => {
      const address = addressOf(context.activity);
      if (address) await followReactions(rt, context, address, context.activity.reactionsRemoved, false);
      await next();
    });
    // A channel or a team deleted, or the app uninstalled: no bridge or reference keeps pointing there (removals.ts).
    this.onTeamsChannelDeletedEvent(async (channel, _team, context, next) => {
      const address = addressOf(context.activity);
      if (address && channel.id) await placeGone(rt, address.tenant, { conversation: channel.id }, 'channelDeleted');
      await next();
    });
    this.onTeamsTeamDeletedEvent(async (team, context, next) => {
      const address = addressOf(context.activity);
      if (address && team.id) await placeGone(rt, address.tenant, { team: team.id }, 'teamDeleted');
      await next();
    });
    this.onInstallationUpdateRemove(async (context, next) => {
      await uninstalled(rt, context);
      await next();
    });
    this.onMembersRemoved(async (context, next) => {
      await membersChanged(rt, context);
      await next();
    });
    this.onMembersAdded(async (context, next) => {
      await membersChanged(rt, context);
      const botAdded = context.activity.membersAdded?.some((m) => m.id === context.activity.recipient.id);
      const address = addressOf(context.activity);
      if (botAdded && address) {
        await guard(rt, context, async () => {
          const target = await targetOf(rt, address);
          if (!target) return say(context, notConnected(address.tenant));
          if (address.type !== 'personal') return say(context, INTRO);
          await say(context, helpText(true));
          await context.sendActivity(cardActivity(pickerCard(target.directory, null), 'Choose an agent'));
        });
      }
      await next();
    });
  }

  /** The Action.Submit fallback of older clients: the card's data arrives as a message. */
  private async submitted(context: TurnContext, address: TeamsAddress, value: Record<string, unknown>): Promise<void> {
    if (value.sb === APPROVAL) {
      const { notice } = await approvalAction(this.rt, context, String(value.verb ?? ''), value);
      // On success the card itself is updated by the teams.approval.update job.
      if (notice) await say(context, notice);
    } else if (value.sb === LINK) {
      await linkCommand(this.rt, context, address.tenant, 'link');
    } else if (value.sb === PICK_AGENT) {
      // The card says what happened: the agent chosen, or why nothing was saved.
      await context.sendActivity(cardActivity(await pickAgent(this.rt, context, address, value), 'Choose an agent'));
    }
  }

  /** Feedback on an agent's message (its 👍/👎 buttons) goes to the agent; other invokes as the SDK routes them. */
  protected override async onInvokeActivity(context: TurnContext): Promise<InvokeResponse> {
    if (context.activity.name === 'message/submitAction') return feedbackInvoke(this.rt, context);
    return super.onInvokeActivity(context);
  }

  /** A Switchboard link pasted in the compose box: its preview card (unfurls.ts). */
  protected override handleTeamsAppBasedLinkQuery(
    context: TurnContext,
    query: AppBasedLinkQuery,
  ): Promise<MessagingExtensionResponse> {
    return queryLink(this.rt, context, query);
  }

  /** Action.Execute clicks and card refreshes; the response is always the updated card (an empty one makes Teams retry). */
  protected override async onAdaptiveCardInvoke(
    context: TurnContext,
    value: AdaptiveCardInvokeValue,
  ): Promise<AdaptiveCardInvokeResponse> {
    const data = (value.action.data ?? {}) as Record<string, unknown>;
    const address = addressOf(context.activity);
    try {
      if (!address) throw new Error('an invoke without a Teams conversation');
      if (data.sb === APPROVAL)
        return cardResponse((await approvalAction(this.rt, context, value.action.verb, data)).card);
      if (data.sb === PICK_AGENT) return cardResponse(await pickAgent(this.rt, context, address, data));
      if (data.sb === LINK) return cardResponse(await linkAgain(this.rt, context, address.tenant));
      return cardResponse(
        adaptiveCard([
          { type: 'TextBlock', text: 'This card is out of date; Switchboard no longer handles it.', wrap: true },
        ]),
      );
    } catch (e) {
      this.rt.logger.error({ err: loggable(e), verb: value.action.verb }, 'a Teams card action failed');
      return cardResponse(
        adaptiveCard([
          {
            type: 'TextBlock',
            text: "Something went wrong on Switchboard's side; the error was logged. Try again in a moment.",
            wrap: true,
            color: 'Attention',
          },
        ]),
      );
    }
  }
}
