// The App Home tab and the DM agent picker: which agent a person's DMs with
// the app go to, saved per Slack user.
import type { BlockStaticSelectAction, types, webApi } from '@slack/bolt';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import type { SlackListeners } from './event-listeners.ts';
import { handleOf, notConnected, talkableAgents } from './replies.ts';
import { guard, targetFor } from './respond.ts';
import type { SlackRuntime } from './runtime.ts';

/** The action id of the agent picker, in the Home tab and in the DM. */
export const PICK_AGENT = 'switchboard_pick_agent';

const option = (d: WorkspaceAgent, directory: WorkspaceAgent[]): types.PlainTextOption => ({
  text: { type: 'plain_text', text: `${d.agent.displayName} (@${handleOf(d, directory)})`.slice(0, 75) },
  value: d.agent.id,
});

/** A section with the picker; the current choice preselected. Slack takes at most 100 options. */
export function pickerBlocks(
  directory: WorkspaceAgent[],
  chosen: WorkspaceAgent | null,
  prompt: string,
): types.KnownBlock[] {
  const agents = talkableAgents(directory).slice(0, 100);
  if (!agents.length) {
    return [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: 'No agents have joined this workspace yet, so there is nobody to talk to.' },
      },
    ];
  }
  return [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: prompt },
      accessory: {
        type: 'static_select',
        action_id: PICK_AGENT,
        placeholder: { type: 'plain_text', text: 'Choose an agent' },
        options: agents.map((d) => option(d, directory)),
        ...(chosen ? { initial_option: option(chosen, directory) } : {}),
      },
    },
  ];
}

export function homeView(
  workspaceName: string,
  directory: WorkspaceAgent[],
  chosen: WorkspaceAgent | null,
): types.HomeView {
  const current = chosen
    ? `Your messages to me go to *${chosen.agent.displayName}* (\`@${handleOf(chosen, directory)}\`).`
    : 'Choose the agent your messages to me go to.';
  return {
    type: 'home',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'Switchboard' } },
      { type: 'section', text: { type: 'mrkdwn', text: `Agents of the workspace *${workspaceName}*. ${current}` } },
      ...pickerBlocks(directory, chosen, '*Talk to*'),
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: 'In channels, mention me and name an agent: `@Switchboard ask @reviewer …`.' },
        ],
      },
    ],
  };
}

/** The person's chosen DM agent, if it is still in the workspace. */
export async function chosenAgent(rt: SlackRuntime, teamId: string, userId: string, directory: WorkspaceAgent[]) {
  const id = await rt.core.defaultAgents.get({
    surface: 'slack',
    tenantId: teamId,
    scope: 'user',
    scopeId: userId,
  });
  return talkableAgents(directory).find((d) => d.agent.id === id) ?? null;
}

async function openDm(client: webApi.WebClient, userId: string): Promise<string> {
  const opened = await client.conversations.open({ users: userId });
  return opened.channel!.id!;
}

export function registerHome(bolt: SlackListeners, rt: SlackRuntime) {
  bolt.event('app_home_opened', async ({ event, context, client }) => {
    if (event.tab !== 'home') return;
    await guard(rt, client, null, async () => {
      const target = await targetFor(rt, context.teamId!, client);
      const view: types.HomeView =
        'refusal' in target
          ? { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: target.refusal } }] }
          : homeView(
              target.workspace.name,
              target.directory,
              await chosenAgent(rt, context.teamId!, event.user, target.directory),
            );
      await client.views.publish({ user_id: event.user, view });
    });
  });

  bolt.action<BlockStaticSelectAction>({ action_id: PICK_AGENT }, async ({ ack, action, body, client, context }) => {
    await ack();
    const teamId = context.teamId ?? body.team?.id ?? '';
    const userId = body.user.id;
    await guard(rt, client, null, async () => {
      const dm = await openDm(client, userId);
      const target = await targetFor(rt, teamId, client);
      if ('refusal' in target) {
        await client.chat.postMessage({ channel: dm, text: notConnected(teamId) });
        return;
      }
      const picked = talkableAgents(target.directory).find((d) => d.agent.id === action.selected_option.value);
      if (!picked) {
        await client.chat.postMessage({
          channel: dm,
          text: 'That agent is no longer in this workspace; open my Home tab for the current list.',
        });
        return;
      }
      await rt.core.defaultAgents.set(
        { surface: 'slack', tenantId: teamId, scope: 'user', scopeId: userId },
        picked.agent.id,
        userId,
      );
      await client.views.publish({ user_id: userId, view: homeView(target.workspace.name, target.directory, picked) });
      await client.chat.postMessage({
        channel: dm,
        text: `You are now talking to *${picked.agent.displayName}* (\`@${handleOf(picked, target.directory)}\`). Messages you send me here go to it; choose another agent in my Home tab.`,
      });
    });
  });
}
