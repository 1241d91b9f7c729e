// The app's DM as Slack's AI surface shows it (the manifest's agent_view, or
// assistant_view for apps made before it): where a person starts talking to
// the app, Switchboard suggests prompts that reach its agents, and titles an
// assistant thread after the workspace.
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import type { SlackListeners } from './event-listeners.ts';
import { loggable } from './errors.ts';
import { handleOf, talkableAgents } from './replies.ts';
import { guard } from './respond.ts';
import { workspaceOf, type SlackRuntime } from './runtime.ts';

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;
const PROMPTS_TITLE = 'Ask an agent';

/** The prompts for a new thread: the person's chosen agent first, then others; each names its agent so the message reaches it. */
export function suggestedPrompts(
  directory: WorkspaceAgent[],
  chosenId: string | null,
): Array<{ title: string; message: string }> {
  const agents = talkableAgents(directory).filter((d) => d.agent.kind === 'agent');
  const ordered = [...agents.filter((d) => d.agent.id === chosenId), ...agents.filter((d) => d.agent.id !== chosenId)];
  return ordered.slice(0, MAX_PROMPTS).map((d) => ({
    title: `Ask ${d.agent.displayName}`.slice(0, 75),
    message: `@${handleOf(d, directory)} what can you help me with?`,
  }));
}

/**
 * The workspace a team is connected to and the prompts for one of its people; null when the team is not connected
 * yet (the first message then gets the sentence that says so).
 */
async function promptsFor(rt: SlackRuntime, teamId: string, user: string) {
  const found = await workspaceOf(rt, teamId);
  if (!found?.workspace) return null;
  const directory = await rt.core.agents.directory(found.workspace);
  const chosen = await rt.core.defaultAgents.get({ surface: 'slack', tenantId: teamId, scope: 'user', scopeId: user });
  return { workspace: found.workspace, prompts: suggestedPrompts(directory, chosen) };
}

/**
 * The app's DM as Slack's AI surface shows it, in both of Slack's versions: installs made from a manifest with
 * `assistant_view` get assistant_thread_started for each new thread (titled and given prompts there); installs made
 * with `agent_view`, the only one Slack offers new apps, get app_home_opened on the Messages tab instead, and the
 * prompts are set on the DM.
 */
export function registerAssistantThreads(bolt: SlackListeners, rt: SlackRuntime): void {
  bolt.event('assistant_thread_started', async ({ event, context, client }) => {
    const { channel_id: channel, thread_ts: threadTs, user_id: user } = event.assistant_thread;
    await guard(rt, client, null, async () => {
      const shown = await promptsFor(rt, context.teamId!, user);
      if (!shown) return;
      try {
        await client.assistant.threads.setTitle({
          channel_id: channel,
          thread_ts: threadTs,
          title: `Switchboard · ${shown.workspace.name}`.slice(0, 255),
        });
        if (shown.prompts.length)
          await client.assistant.threads.setSuggestedPrompts({
            channel_id: channel,
            thread_ts: threadTs,
            title: PROMPTS_TITLE,
            prompts: shown.prompts,
          });
      } catch (err) {
        // A title and prompts are a courtesy: the thread works without them.
        rt.logger.warn({ err: loggable(err), channel }, 'could not set the title or prompts of an assistant thread');
      }
    });
  });

  bolt.event('app_home_opened', async ({ event, context, client }) => {
    if (event.tab !== 'messages') return;
    await guard(rt, client, null, async () => {
      const shown = await promptsFor(rt, context.teamId!, event.user);
      if (!shown?.prompts.length) return;
      try {
        // No thread_ts: in agent_view, Slack silently drops a call that names one.
        await client.assistant.threads.setSuggestedPrompts({
          channel_id: event.channel,
          title: PROMPTS_TITLE,
          prompts: shown.prompts,
        });
      } catch (err) {
        rt.logger.warn({ err: loggable(err), channel: event.channel }, "could not set the prompts of the app's DM");
      }
    });
  });
}
