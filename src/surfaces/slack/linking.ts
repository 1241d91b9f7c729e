// Account linking in Slack: the DM with a "Link your account" button the
// first time an unlinked person talks to an agent, `/switchboard link` and
// `unlink`, the "Send me a new link" button, and the `slack.link.done` job
// that says "Linked as @alice" in the DM. The flow itself is the core's
// LinkService; this file only renders it and maps Slack users to identities.
import type { BlockButtonAction, webApi } from '@slack/bolt';
import { isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import { isOutage, PermanentFailure } from '../../core/errors.ts';
import { linkReplies, type LinkWording } from '../../core/linking/link-rules.ts';
import type { LinkPrompt, PromptReason } from '../../core/linking/link-service.ts';
import type { JobHandler } from '../../core/ports.ts';
import type { ExternalIdentity, ExternalKey } from '../../core/surfaces/surface-ports.ts';
import type { SlackListeners } from './event-listeners.ts';
import { registerAudienceEvents } from './audience.ts';
import { classifySlackError, loggable } from './errors.ts';
import { postOnce } from './post-once.ts';
import { SLACK, type SlackRuntime } from './runtime.ts';
import { SLACK_LINK_DONE } from './topics.ts';

export const LINK_OPEN = 'switchboard_link_open';
export const LINK_AGAIN = 'switchboard_link_again';

const keyOf = (teamId: string, userId: string): ExternalKey => ({
  surface: 'slack',
  tenantId: teamId,
  externalUserId: userId,
});

/** The prompt as a Slack message: the text, a URL button to the link page, a button for a fresh link, and when it expires. */
export function linkBlocks(p: LinkPrompt): webApi.KnownBlock[] {
  const epoch = Math.floor(p.expiresAt.getTime() / 1000);
  return [
    { type: 'section', text: { type: 'mrkdwn', text: p.text } },
    {
      type: 'actions',
      block_id: 'switchboard_link',
      elements: [
        {
          type: 'button',
          action_id: LINK_OPEN,
          style: 'primary',
          text: { type: 'plain_text', text: p.button },
          url: p.url,
        },
        { type: 'button', action_id: LINK_AGAIN, text: { type: 'plain_text', text: p.again }, value: 'again' },
      ],
    },
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `This link expires <!date^${epoch}^{time}|in 15 minutes>.` }],
    },
  ];
}

/** The one-line fallback Slack shows in notifications. */
const fallback = (p: LinkPrompt) => `${p.button} to Switchboard: ${p.url}`;

/** A fresh link for a Slack user, rendered; or the person they are linked to already. */
async function offerFor(rt: SlackRuntime, identity: ExternalIdentity, reason: PromptReason) {
  const tenantName = (await rt.installations.get(identity.tenantId))?.teamName ?? '';
  return rt.core.links.offer(identity, { tenantName, reason });
}

/**
 * Sends the "Link your account" DM (the core decides it is the first time). A
 * failure is logged, never in the way of the message itself; the core then
 * tries again at the person's next message, and they can ask with the slash command.
 */
export async function sendLinkPrompt(
  rt: SlackRuntime,
  client: webApi.WebClient,
  identity: ExternalIdentity,
  reason: PromptReason,
): Promise<boolean> {
  try {
    const offer = await offerFor(rt, identity, reason);
    const dm = await client.conversations.open({ users: identity.externalUserId });
    await client.chat.postMessage({
      channel: dm.channel!.id!,
      text: fallback(offer.prompt),
      blocks: linkBlocks(offer.prompt),
      unfurl_links: false,
    });
    return true;
  } catch (err) {
    rt.logger.warn(
      { err: loggable(err), identityId: identity.id },
      'could not send the link prompt DM; it is tried again at their next message',
    );
    return false;
  }
}

/** What Slack says about a person's link, with the configured command. */
const replies = (rt: SlackRuntime) =>
  linkReplies(SLACK.label, {
    link: `\`${rt.settings.command} link\` links it`,
    unlink: `\`${rt.settings.command} unlink\` removes the link`,
  });

/** `/switchboard link` and `/switchboard unlink` (the configured command), answered to the person alone. */
export async function linkCommand(rt: SlackRuntime, teamId: string, userId: string, head: 'link' | 'unlink') {
  const key = keyOf(teamId, userId);
  const say = replies(rt);
  if (head === 'unlink') {
    const done = await rt.core.links.unlinkChatUser(key);
    return { response_type: 'ephemeral' as const, text: done ? say.unlinked(done.handle) : say.notLinked() };
  }
  const { identity, person } = await rt.core.links.whoIs(key);
  if (person) return { response_type: 'ephemeral' as const, text: say.linkedAs(person.handle) };
  const offer = await offerFor(rt, identity ?? (await rt.identities.upsert(key)), 'asked');
  return { response_type: 'ephemeral' as const, text: fallback(offer.prompt), blocks: linkBlocks(offer.prompt) };
}

/**
 * The two buttons of the prompt (opening the link only needs an acknowledgement;
 * a new link replaces the prompt in place), and the channel membership events audiences follow.
 */
export function registerLinking(bolt: SlackListeners, rt: SlackRuntime): void {
  registerAudienceEvents(bolt, rt);
  bolt.action(LINK_OPEN, async ({ ack }) => {
    await ack();
  });

  bolt.action<BlockButtonAction>(LINK_AGAIN, async ({ ack, body, client, respond }) => {
    await ack();
    const teamId = body.team?.id ?? body.user.team_id;
    if (!teamId) return;
    try {
      const { identity, person } = await rt.core.links.whoIs(keyOf(teamId, body.user.id));
      const message = person
        ? { text: replies(rt).linkedAs(person.handle, true), blocks: [] as webApi.KnownBlock[] }
        : await offerFor(rt, identity ?? (await rt.identities.upsert(keyOf(teamId, body.user.id))), 'asked').then(
            (o) => ({ text: fallback(o.prompt), blocks: linkBlocks(o.prompt) }),
          );
      // Ephemeral prompts (the slash command's) can only be replaced through response_url; messages in the DM are updated.
      if (body.container?.is_ephemeral || !body.message || !body.channel)
        await respond({ replace_original: true, ...message });
      else await client.chat.update({ channel: body.channel.id, ts: body.message.ts, ...message });
    } catch (err) {
      rt.logger.warn({ err: loggable(err) }, 'could not send a new link');
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: `Something went wrong on Switchboard's side; the error was logged. Try \`${rt.settings.command} link\`.`,
      }).catch(() => {});
    }
  });
}

/** `slack.link.done`: "Linked as @alice" in the person's DM with the app, delivered with retries like every Slack post. */
export function linkDoneHandler(rt: SlackRuntime): JobHandler {
  return async (raw, ctx) => {
    const done = await rt.core.links.linkDone(SLACK_LINK_DONE, raw);
    if (!done) return;
    const { identity, person } = done;
    const creds = await rt.installations.credentials(identity.tenantId);
    if (!creds)
      throw new PermanentFailure(`Switchboard is no longer installed in the Slack team ${identity.tenantId}.`);
    const client = rt.clients.for(creds.token);
    try {
      const dm = await client.conversations.open({ users: identity.externalUserId });
      // Once per job (a later link is another job), even across a crash between posting and finishing.
      await postOnce(
        rt,
        client,
        `link-done:${ctx.entryId}`,
        {
          channel: dm.channel!.id!,
          text: replies(rt).linked(person),
        },
        ctx.signal,
      );
    } catch (e) {
      if (isOutage(e)) throw e;
      throw jobErrorFor(isDeliveryError(e) ? e.failure : classifySlackError(e));
    }
  };
}

/**
 * How to get a link in Slack, finishing a sentence (SurfacePort.linkHowTo): `justSent` when a prompt just went to
 * the person's DM, `sendFailed` when it could not be sent.
 */
export function slackLinkHowTo(command: string, justSent: boolean, sendFailed = false): string {
  if (sendFailed) return `I could not send you a DM, so use \`${command} link\` to get a link`;
  return (
    (justSent ? 'I sent you a link in a DM: ' : 'Use the link I sent you in a DM, or ') +
    `\`${command} link\` gives you a new one`
  );
}

/** How Slack speaks of account links, with the configured command. */
export function slackLinkWording(command: string): LinkWording {
  return {
    app: 'Slack',
    tenant: 'team',
    newLink: `Get a new one with \`${command} link\` in Slack, or the "Send me a new link" button in my DM.`,
    ask: `write \`${command} link\` to the Switchboard app in Slack`,
    unlink: `\`${command} unlink\` in Slack`,
  };
}
