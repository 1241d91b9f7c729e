// The app's DM as Slack's AI app surface shows it (the manifest's
// assistant_view): when a person opens a new assistant thread, Switchboard
// titles it after the workspace and suggests prompts that reach its agents.
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import type { SlackListeners } from './event-listeners.ts';
import { loggable } from './errors.ts';
import { handleOf, talkableAgents } from './replies.ts';
import { guard } from './respond.ts';
import { workspaceOf, type SlackRuntime } from './runtime.ts';

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;

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

export function registerAssistantThreads(bolt: SlackListeners, rt: SlackRuntime): void {
  bolt.event('assistant_thread_started', async ({ event, context, client }) => {
    const { channel_id: channel, thread_ts: threadTs, user_id: user } = event.assistant_thread;
    await guard(rt, client, null, async () => {
      const found = await workspaceOf(rt, context.teamId!);
      // Not connected yet: the first message gets the sentence that says so.
      if (!found?.workspace) return;
      const ws = found.workspace;
      const directory = await rt.core.agents.directory(ws);
      const prompts = suggestedPrompts(
        directory,
        await rt.core.defaultAgents.get({
          surface: 'slack',
          tenantId: context.teamId!,
          scope: 'user',
          scopeId: user,
        }),
      );
      try {
        await client.assistant.threads.setTitle({
          channel_id: channel,
          thread_ts: threadTs,
          title: `Switchboard · ${ws.name}`.slice(0, 255),
        });
        if (prompts.length)
          await client.assistant.threads.setSuggestedPrompts({
            channel_id: channel,
            thread_ts: threadTs,
            title: 'Ask an agent',
            prompts,
          });
      } catch (err) {
        // A title and prompts are a courtesy: the thread works without them.
        rt.logger.warn({ err: loggable(err), channel }, 'could not set the title or prompts of an assistant thread');
      }
    });
  });
}
