// What the app says back to people in Slack: agent lists, help, refusals.
import { handleOf, talkableAgents } from '../../core/agents/naming.ts';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';

export { handleOf, talkableAgents } from '../../core/agents/naming.ts';

/** One line per agent: `@reviewer` — Reviewer: reviews pull requests. */
export function agentList(directory: WorkspaceAgent[]): string {
  const agents = talkableAgents(directory);
  if (!agents.length)
    return 'No agents have joined this workspace yet. An owner can add one with `switchboard agent join OWNER/NAME WORKSPACE`.';
  return agents
    .map(
      (d) =>
        `• \`@${handleOf(d, directory)}\` — ${d.agent.displayName}${d.agent.roleLine ? `: ${d.agent.roleLine}` : ''}`,
    )
    .join('\n');
}

export function noAgentNamed(directory: WorkspaceAgent[], botUserId: string | undefined): string {
  const me = botUserId ? `<@${botUserId}>` : '@Switchboard';
  return `Name the agent you want, e.g. ${me} ask @${talkableAgents(directory)[0] ? handleOf(talkableAgents(directory)[0], directory) : 'reviewer'} to look at this. Agents here:\n${agentList(directory)}`;
}

/**
 * A slash command whose first word is neither a command nor an agent: what
 * went wrong (`problem`, with any near names), the agents here, and how to ask one.
 */
export function unknownWord(command: string, word: string, problem: string, directory: WorkspaceAgent[]): string {
  const first = talkableAgents(directory)[0];
  const example = first ? handleOf(first, directory) : 'reviewer';
  return [
    `\`${word}\` is not one of my commands. ${problem}`,
    `To ask an agent, start with its name: \`${command} ${example} look at #418\`. Agents here:`,
    agentList(directory),
    `\`${command} help\` lists the commands.`,
  ].join('\n');
}

export function notConnected(teamId: string): string {
  return `This Slack team is not connected to a Switchboard workspace yet. An admin can connect it with \`switchboard slack connect WORKSPACE --team-id ${teamId}\`.`;
}

export function helpText(command: string): string {
  return [
    '*Switchboard* puts AI agents next to you in Slack.',
    `• Mention me and name agents: \`@Switchboard ask @reviewer to look at #418\` (several named agents each get it; \`@owner/name\` when two share a name).`,
    `• \`${command} reviewer look at #418\` sends to \`reviewer\` from any channel I am in.`,
    `• \`${command} agents\` lists the agents here.`,
    `• \`${command} default reviewer\` makes \`reviewer\` the agent that gets mentions naming nobody in this channel (\`${command} default off\` clears it).`,
    '• DM me to talk to one agent privately; pick it in my Home tab.',
    `• \`${command} link\` links your Slack account to your Switchboard account, so agents act with your access (\`${command} unlink\` removes the link).`,
    `• \`${command} notices off\` stops the message telling you that something you asked for is done (\`${command} notices on\` brings it back).`,
    'Agents answer in the same thread, under their own name.',
  ].join('\n');
}

/** Said in a channel when the app joins it. */
export function introText(command: string): string {
  return `Hi! I connect this channel to Switchboard's agents. Mention me and name an agent (\`@Switchboard ask @reviewer …\`), or use \`${command} agents\` to see who is here.`;
}
