// The slash command (`/switchboard` unless SLACK_COMMAND says otherwise):
// `<agent> …` sends to an agent, `agents` lists them, `default` sets the
// channel's default agent, `help` explains. Answers that need no work are given
// in the acknowledgement itself; a delivery is acknowledged first.
import type { RespondFn, SlashCommand } from '@slack/bolt';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import { isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import type { SlackListeners } from './event-listeners.ts';
import { normalise, resolveNames, slackPort, type SlackTarget } from './inbound.ts';
import { escapeSlack, markdownToSlack } from './format/out.ts';
import { linkCommand } from './linking.ts';
import { splitCommand } from './command-text.ts';
import { agentList, handleOf, helpText, unknownWord } from './replies.ts';
import { guard, targetFor } from './respond.ts';
import { bridgedReply } from './bridge.ts';
import type { SlackRuntime } from './runtime.ts';
import { loggable } from './errors.ts';
import { postOnce } from './post-once.ts';
import { readSlackMessage } from './read-message.ts';
import { jobOf } from './receiver.ts';

type Reply = { response_type?: 'ephemeral' | 'in_channel'; text: string };

export function registerCommand(bolt: SlackListeners, rt: SlackRuntime) {
  const name = rt.settings.command;
  bolt.command(name, async ({ command, ack, client, context, respond }) => {
    const teamId = context.teamId ?? command.team_id;
    const { head, rest } = splitCommand(command.text);
    if (!head || head === 'help') return ack({ response_type: 'ephemeral', text: helpText(name) });
    if (head === 'link' || head === 'unlink') return ack(await linkCommand(rt, teamId, command.user_id, head));
    if (head === 'notices') return ack(await noticesCommand(rt, teamId, command.user_id, rest));
    const target = await targetFor(rt, teamId, client);
    if ('refusal' in target) return ack({ response_type: 'ephemeral', text: target.refusal });
    if (head === 'agents')
      return ack({ response_type: 'ephemeral', text: `Agents here:\n${agentList(target.directory)}` });
    if (head === 'default') return ack(await setDefault(rt, target, command, rest));

    const { recipients, problems } = resolveNames(target.directory, [head]);
    if (problems.length) {
      const unknown = !target.directory.some((d) => d.agent.name === head.split('/').pop());
      return ack({
        response_type: 'ephemeral',
        text: unknown ? unknownWord(name, head, problems[0], target.directory) : problems.join('\n'),
      });
    }
    const [agent] = recipients;
    const handle = handleOf(agent, target.directory);
    if (!rest)
      return ack({
        response_type: 'ephemeral',
        text: `Write what you want to tell ${agent.agent.displayName}: \`${name} ${handle} look at #418\`.`,
      });
    // With linking required, an unlinked person's request is not even posted in the channel.
    const required = await rt.core.inbound.linkingRefusal(
      slackPort(rt, client, teamId, command.channel_id),
      target,
      teamId,
      command.user_id,
    );
    if (required) return ack({ response_type: 'ephemeral', text: required });
    await ack();
    // Read like any message: names for people and channels Slack left without a label.
    const body = (await readSlackMessage(rt, client, teamId, { text: rest }, undefined)).markdown;
    await deliverCommand(
      rt,
      target,
      command,
      respond,
      { agent: agent.agent.displayName, handle, body, recipients },
      jobOf(context)?.signal,
    );
  });
}

/**
 * The command itself is invisible to the channel, so the app first posts the
 * request there; that post is the thread the agent answers in.
 */
async function deliverCommand(
  rt: SlackRuntime,
  target: SlackTarget,
  command: SlashCommand,
  respond: RespondFn,
  r: { agent: string; handle: string; body: string; recipients: WorkspaceAgent[] },
  signal?: AbortSignal,
) {
  const { client } = target;
  const say = (text: string) =>
    respond({ response_type: 'ephemeral', text }).then(
      () => undefined,
      (err: unknown) => {
        rt.logger.warn({ err: loggable(err) }, 'could not answer the slash command');
      },
    );
  let ts: string;
  try {
    // Once per command (its trigger_id): a retried job finds the post it made instead of asking again.
    ({ ts } = await postOnce(
      rt,
      client,
      `command:${command.trigger_id}`,
      {
        // All of the request, in sections when long, like an agent's answer.
        channel: command.channel_id,
        ...markdownToSlack(r.body, `<@${command.user_id}> asked *${escapeSlack(r.agent)}* (\`@${r.handle}\`):`),
        metadata: { event_type: 'switchboard_request', event_payload: { user: command.user_id } },
      },
      signal,
    ));
  } catch (e) {
    if (!isDeliveryError(e)) throw e;
    const failure = e.failure;
    rt.logger.warn({ channel: command.channel_id, reason: failure.reason }, 'could not post a slash-command request');
    // Slack down or pacing us: the stored command is handled again later.
    if (failure.kind !== 'permanent') throw jobErrorFor(failure);
    return say(
      failure.code === 'not_in_channel' || failure.code === 'channel_not_found'
        ? `I am not in this channel, so ${r.agent} could not answer here. Invite me with \`/invite @Switchboard\`, or send me a DM.`
        : `Slack did not take the message (${failure.reason}).`,
    );
  }
  const where = { channel: command.channel_id, user: command.user_id, thread_ts: ts };
  await guard(rt, client, where, async () => {
    const teamId = target.installation.teamId;
    const port = slackPort(rt, client, teamId, command.channel_id);
    const place = command.channel_id.startsWith('D') ? 'dm' : 'channel';
    // In a bridged channel the request goes through the bridge like a mention: stored in the web channel (naming
    // the agent, so every side reads whom it is for), with the post above as its Slack counterpart for thread replies.
    if (place === 'channel') {
      const outcome = await rt.core.inbound.mirrorBridged(
        port,
        normalise({
          teamId,
          channel: command.channel_id,
          userId: command.user_id,
          body: `@${r.handle} ${r.body}`,
          names: [r.handle.toLowerCase()],
          ts,
          threadTs: ts,
          place,
          addressed: true,
        }),
      );
      if (outcome) {
        const reply = bridgedReply(outcome, target.installation.botUserId);
        if (reply) await say(reply);
        return;
      }
    }
    const msg = normalise({
      teamId,
      channel: command.channel_id,
      userId: command.user_id,
      body: r.body,
      names: [],
      ts,
      threadTs: ts,
      place,
      addressed: true,
    });
    const { refusals } = await rt.core.inbound.deliver(port, msg, target, r.recipients);
    if (refusals.length) await say(refusals.join('\n'));
  });
}

/** `default reviewer` sets the channel's default agent, `default off` clears it; said in the channel so everyone knows. */
async function setDefault(rt: SlackRuntime, target: SlackTarget, command: SlashCommand, rest: string): Promise<Reply> {
  const key = {
    surface: 'slack',
    tenantId: target.installation.teamId,
    scope: 'channel',
    scopeId: command.channel_id,
  } as const;
  const wanted = rest.trim().toLowerCase();
  if (!wanted) {
    return {
      response_type: 'ephemeral',
      text: `Say which agent: \`${rt.settings.command} default reviewer\`, or \`${rt.settings.command} default off\` to clear it.`,
    };
  }
  // Changing the channel's default is acting in the workspace: with linking required, only linked people may.
  const teamId = target.installation.teamId;
  const required = await rt.core.inbound.linkingRefusal(
    slackPort(rt, target.client, teamId, command.channel_id),
    target,
    teamId,
    command.user_id,
  );
  if (required) return { response_type: 'ephemeral', text: required };
  if (wanted === 'off' || wanted === 'none') {
    await rt.core.defaultAgents.set(key, null, command.user_id);
    return {
      response_type: 'in_channel',
      text: `<@${command.user_id}> cleared this channel's default agent; mentions must now name an agent.`,
    };
  }
  const { recipients, problems } = resolveNames(target.directory, [wanted]);
  if (problems.length) return { response_type: 'ephemeral', text: problems.join('\n') };
  const [agent] = recipients;
  if (agent.agent.kind !== 'agent')
    return { response_type: 'ephemeral', text: `\`@${wanted}\` is a person, not an agent; choose an agent.` };
  await rt.core.defaultAgents.set(key, agent.agent.id, command.user_id);
  return {
    response_type: 'in_channel',
    text: `<@${command.user_id}> made *${agent.agent.displayName}* (\`@${handleOf(agent, target.directory)}\`) this channel's default agent: mentions of me that name nobody go to it.`,
  };
}

/** `notices on|off`: whether this person is told, in their thread, when something they asked for is done (intake). */
async function noticesCommand(rt: SlackRuntime, teamId: string, userId: string, word: string): Promise<Reply> {
  const identity = await rt.identities.upsert({ surface: 'slack', tenantId: teamId, externalUserId: userId });
  const say = { on: `\`${rt.settings.command} notices on\``, off: `\`${rt.settings.command} notices off\`` };
  return { response_type: 'ephemeral', text: await rt.core.intake.noticesCommand(identity, word, say) };
}
