// What Switchboard shows in Teams: agents' answers under their own name and
// avatar (Teams always shows the bot's), the personal chat's agent picker, and
// the texts people get back. Adaptive Cards are plain JSON (schema 1.5).
import { CardFactory, type Activity, type Attachment } from 'botbuilder';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import { excerpt } from '../../core/format/markdown.ts';
import { qualifiedName, type Agent } from '../../core/entities.ts';
import { markdownToTeams, teamsLine, TEAMS_LIMIT_BYTES, type TeamsPerson } from './format/out.ts';
import { aiParts, withCitationMarkers, withSourcesListed, writtenByAgent } from './ai-content.ts';

export type Card = Record<string, unknown>;

/** The invoke response type for a card returned from `adaptiveCard/action`. */
export const CARD_RESPONSE_TYPE = 'application/vnd.microsoft.card.adaptive';

export function adaptiveCard(body: Card[], extra: Card = {}): Card {
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.5',
    body,
    msteams: { width: 'Full' },
    ...extra,
  };
}

/** The header every agent post starts with: avatar, display name, and `owner/name` so people can address it. */
export function agentHeader(agent: Agent, note?: string): Card {
  const names: Card[] = [
    { type: 'TextBlock', text: agent.displayName, weight: 'Bolder', wrap: true },
    {
      type: 'TextBlock',
      text: note ?? `${qualifiedName(agent)}${agent.roleLine ? ` · ${agent.roleLine}` : ''}`,
      isSubtle: true,
      spacing: 'None',
      size: 'Small',
      wrap: true,
    },
  ];
  const columns: Card[] = agent.avatarUrl
    ? [
        {
          type: 'Column',
          width: 'auto',
          items: [{ type: 'Image', url: agent.avatarUrl, size: 'Small', style: 'Person', altText: agent.displayName }],
        },
      ]
    : [];
  columns.push({ type: 'Column', width: 'stretch', verticalContentAlignment: 'Center', items: names });
  return { type: 'ColumnSet', columns };
}

/** The one-line header of an agent's text message: its name in bold and how to address it (a bridged mirror: where it was written). */
export function compactHeader(agent: Agent, via?: string): string {
  return teamsLine(agent.displayName, ` (${via ? `via ${via}` : qualifiedName(agent)})`);
}

/**
 * An agent's message as Teams shows it (see format-out.ts): a markdown text
 * message under a one-line header, or, for tables, headings and long code, a
 * card under the agent's header with its avatar. `people`: who may be mentioned.
 */
export function agentMessage(
  agent: Agent,
  body: string,
  people?: ReadonlyMap<string, TeamsPerson>,
  via?: string,
): Partial<Activity> {
  const summary = `${agent.displayName}: ${excerpt(body, 120)}`;
  const header = agentHeader(agent, via ? `via ${via}` : undefined);
  const limit = TEAMS_LIMIT_BYTES - Buffer.byteLength(JSON.stringify(header));
  // An agent's own message is marked as AI-written, cites its sources and asks for feedback (ai-content.ts).
  const ai = writtenByAgent(agent, via) ? aiParts(body) : null;
  const shown = markdownToTeams(ai?.body ?? body, people, limit);
  const marks = ai ? { channelData: ai.channelData } : {};
  if (shown.kind === 'text') {
    const entities = [...shown.entities, ...(ai ? [ai.entity] : [])];
    return {
      type: 'message',
      textFormat: 'markdown',
      text: `${compactHeader(agent, via)}\n\n${ai ? withCitationMarkers(shown.text, ai.citations) : shown.text}`,
      summary,
      ...(entities.length ? { entities } : {}),
      ...marks,
    };
  }
  // A card's text is not where Teams links citations: its sources are listed under it as links instead.
  const inCard = ai?.citations.length ? markdownToTeams(withSourcesListed(ai), people, limit) : shown;
  const blocks = inCard.kind === 'card' ? inCard.body : shown.body;
  const card = adaptiveCard([header, ...blocks], { fallbackText: `${agent.displayName}: ${excerpt(body, 1000)}` });
  const { citation: _unlinked, ...label } = ai?.entity ?? {};
  const entities = ai ? { entities: [label as typeof ai.entity] } : {};
  return { type: 'message', attachments: [CardFactory.adaptiveCard(card)], summary, ...entities, ...marks };
}

export function cardActivity(card: Card, summary: string): Partial<Activity> {
  return { type: 'message', attachments: [CardFactory.adaptiveCard(card) as Attachment], summary };
}

/**
 * An Action.Execute for Teams, with an Action.Submit fallback for clients
 * without Universal Actions (they send the data, verb included, as a message).
 */
export function executeAction(title: string, verb: string, data: Record<string, unknown>, extra: Card = {}): Card {
  return {
    type: 'Action.Execute',
    title,
    verb,
    data,
    ...extra,
    fallback: { type: 'Action.Submit', title, data: { ...data, verb }, ...extra },
  };
}

import { handleOf, talkableAgents } from '../../core/agents/naming.ts';

export { handleOf, talkableAgents };

/** The data marking the picker's button. */
export const PICK_AGENT = 'pickAgent';

/** The personal chat's agent picker; the current choice preselected. */
export function pickerCard(directory: WorkspaceAgent[], chosen: WorkspaceAgent | null, prompt?: string): Card {
  const agents = talkableAgents(directory);
  if (!agents.length)
    return adaptiveCard([
      {
        type: 'TextBlock',
        text: 'No agents have joined this workspace yet, so there is nobody to talk to.',
        wrap: true,
      },
    ]);
  const current = chosen
    ? `You are talking to **${chosen.agent.displayName}** (${handleOf(chosen, directory)}).`
    : 'Choose the agent your messages here go to.';
  return adaptiveCard(
    [
      { type: 'TextBlock', text: prompt ?? current, wrap: true },
      {
        type: 'Input.ChoiceSet',
        id: 'agentId',
        style: 'compact',
        label: 'Talk to',
        isRequired: true,
        errorMessage: 'Choose an agent.',
        choices: agents.map((d) => ({
          title: `${d.agent.displayName} (${handleOf(d, directory)})`,
          value: d.agent.id,
        })),
        ...(chosen ? { value: chosen.agent.id } : {}),
      },
    ],
    { actions: [executeAction('Talk to this agent', 'chooseAgent', { sb: PICK_AGENT })] },
  );
}

/** One line per agent: `reviewer` — Reviewer: reviews pull requests. */
export function agentList(directory: WorkspaceAgent[]): string {
  const agents = talkableAgents(directory);
  if (!agents.length)
    return 'No agents have joined this workspace yet. An owner can add one with `switchboard agent join OWNER/NAME WORKSPACE`.';
  return agents
    .map(
      (d) =>
        `- **${handleOf(d, directory)}** — ${d.agent.displayName}${d.agent.roleLine ? `: ${d.agent.roleLine}` : ''}`,
    )
    .join('\n');
}

export function noAgentNamed(directory: WorkspaceAgent[]): string {
  const first = talkableAgents(directory)[0];
  return `Name the agent you want: @Switchboard ask ${first ? handleOf(first, directory) : 'reviewer'} to look at this. Agents here:\n\n${agentList(directory)}`;
}

export function notConnected(tenantId: string): string {
  return `This Microsoft Teams organization is not connected to a Switchboard workspace yet. An admin can connect it with \`switchboard teams connect WORKSPACE --tenant-id ${tenantId}\`.`;
}

export function helpText(personal: boolean): string {
  return [
    '**Switchboard** puts AI agents next to you in Teams.',
    '- In a channel or group chat, mention me and name an agent: @Switchboard ask reviewer to look at PR 12 (or @reviewer; owner/name when two agents share a name).',
    '- "agents" lists the agents here.',
    personal
      ? '- Here in our personal chat, your messages go to the agent you choose ("agents" shows the picker); "link" links your Teams account to Switchboard.'
      : '- In our personal chat, you talk to one agent of your choice.',
    '- "notices off" stops me telling you when something you asked for is done; "notices on" turns it back on.',
    'Agents answer in the same conversation and reply chain, under their own name.',
  ].join('\n');
}

/** Said when the app is added to a team or chat. */
export const INTRO =
  'Hi! I connect this conversation to Switchboard\'s agents. Mention me and name an agent (@Switchboard ask reviewer to …), or write "@Switchboard agents" to see who is here.';
