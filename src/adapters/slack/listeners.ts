// Bolt listeners for what people do in Slack: mention the app in a channel,
// DM it, add it to a channel. Bolt has already checked the signature and
// acknowledged the event when these run, so the work here is after the ack.
import type { App as BoltApp, Middleware, AnyMiddlewareArgs } from '@slack/bolt';
import type { WorkspaceAgent } from '../../domain/agents/agent-service.ts';
import { registerCommand } from './commands.ts';
import { loggable } from './errors.ts';
import { chosenAgent, pickerBlocks, registerHome } from './home.ts';
import { deliverFromSlack, resolveNames } from './inbound.ts';
import { namedAgents, withoutBotMention } from './mentions.ts';
import { agentList, introText, noAgentNamed, talkableAgents } from './replies.ts';
import { fromABot, guard, targetFor, tell } from './respond.ts';
import type { SlackRuntime } from './runtime.ts';

/**
 * Slack redelivers an event it thinks we missed (x-slack-retry-num) and may
 * send one twice; its event_id is recorded in the database, so each is handled
 * once, also across restarts and processes.
 */
export function onceByEventId(rt: SlackRuntime): Middleware<AnyMiddlewareArgs> {
  const gate = new Gate(rt.settings.eventConcurrency);
  return async ({ body, next, context }) => {
    const eventId = (body as { type?: string; event_id?: string }).type === 'event_callback' ? (body as { event_id?: string }).event_id : undefined;
    if (!eventId) return next();
    // Events are acknowledged already; handling a few at a time keeps later acks quick under a burst.
    await gate.run(async () => {
      if (!(await rt.app.store.firstSeen('slack', eventId))) {
        rt.logger.debug({ eventId, retryNum: context.retryNum }, 'skipping a Slack event already handled');
        return;
      }
      await next();
    });
  };
}

/** At most `limit` tasks at once; the rest wait their turn in order. */
class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      // Let pending requests be read and acknowledged first: with the embedded database, queries
      // run on this thread and a chain of them would otherwise hold the acks back.
      await new Promise((resolve) => setImmediate(resolve));
      return await task();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

export function registerListeners(bolt: BoltApp, rt: SlackRuntime) {
  bolt.use(onceByEventId(rt));

  bolt.event('app_mention', async ({ event, context, client }) => {
    if (fromABot(event, context.botUserId)) return;
    const teamId = context.teamId!;
    const threadTs = event.thread_ts ?? event.ts;
    const where = { channel: event.channel, user: event.user!, thread_ts: threadTs };
    await guard(rt, client, where, async () => {
      const target = await targetFor(rt, teamId, client);
      if ('refusal' in target) return tell(client, where, target.refusal);
      const body = withoutBotMention(event.text, context.botUserId);
      const names = namedAgents(body);
      const { recipients, problems } = resolveNames(target.directory, names);
      if (!names.length) {
        const fallback = await channelDefault(rt, teamId, event.channel, target.directory);
        if (!fallback || !body) return tell(client, where, noAgentNamed(target.directory, context.botUserId));
        recipients.push(fallback);
      }
      if (problems.length) await tell(client, where, problems.join('\n'));
      if (!recipients.length) return;
      const { refusals } = await deliverFromSlack(rt, target, {
        teamId, channel: event.channel, userId: event.user!, body, ts: event.ts, threadTs, kind: 'channel',
      }, recipients);
      if (refusals.length) await tell(client, where, refusals.join('\n'));
    });
  });

  bolt.message(async ({ message, context, client }) => {
    if (message.channel_type !== 'im' || message.subtype !== undefined || fromABot(message, context.botUserId)) return;
    const teamId = context.teamId!;
    const where = { channel: message.channel, user: message.user, ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}) };
    await guard(rt, client, where, async () => {
      const target = await targetFor(rt, teamId, client);
      if ('refusal' in target) return tell(client, where, target.refusal);
      const body = withoutBotMention(message.text ?? '', context.botUserId);
      if (!body) return;
      const names = namedAgents(body);
      const { recipients, problems } = resolveNames(target.directory, names);
      if (!names.length) {
        const chosen = await chosenAgent(rt, teamId, message.user, target.directory);
        if (!chosen) {
          await client.chat.postMessage({
            channel: message.channel, text: `Choose the agent to talk to first. Agents here:\n${agentList(target.directory)}`,
            blocks: pickerBlocks(target.directory, null, 'Choose the agent your messages to me go to, then write again.'),
          });
          return;
        }
        recipients.push(chosen);
      }
      if (problems.length) await tell(client, where, problems.join('\n'));
      if (!recipients.length) return;
      const { refusals } = await deliverFromSlack(rt, target, {
        teamId, channel: message.channel, userId: message.user, body, ts: message.ts, threadTs: message.thread_ts, kind: 'dm',
      }, recipients);
      if (refusals.length) await tell(client, where, refusals.join('\n'));
    });
  });

  bolt.event('member_joined_channel', async ({ event, context, client }) => {
    if (event.user !== context.botUserId) return;
    await guard(rt, client, null, async () => {
      await client.chat.postMessage({ channel: event.channel, text: introText(rt.settings.command) });
    });
  });

  registerHome(bolt, rt);
  registerCommand(bolt, rt);

  bolt.error(async (error) => {
    rt.logger.error({ err: loggable((error as { original?: unknown }).original ?? error), code: error.code }, 'Slack request failed');
  });
}

/** The channel's default agent, if one is set and still in the workspace. */
export async function channelDefault(rt: SlackRuntime, teamId: string, channel: string, directory: WorkspaceAgent[]) {
  const id = await rt.choices.get(teamId, 'channel', channel);
  return id ? talkableAgents(directory).find((d) => d.agent.id === id) ?? null : null;
}
