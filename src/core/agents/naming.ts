import { SwitchboardError } from '../errors.ts';
import { qualifiedName } from '../entities.ts';
import { resolveOne, type WorkspaceAgent } from './agent-service.ts';

/** How people should name an agent: its bare name when unique in the workspace, else owner/name. */
export function handleOf(entry: WorkspaceAgent, directory: WorkspaceAgent[]): string {
  const a = entry.agent;
  return directory.some((d) => d.agent.id !== a.id && d.agent.name === a.name) ? qualifiedName(a) : a.name;
}

/** The agents (not people) that take messages in the workspace, by name. */
export function talkableAgents(directory: WorkspaceAgent[]): WorkspaceAgent[] {
  return directory
    .filter((d) => d.agent.kind === 'agent' && d.permissions.receive)
    .sort((a, b) => a.agent.name.localeCompare(b.agent.name));
}

/**
 * Resolves the names a chat message gives; unknown or ambiguous ones become
 * sentences for the person, with each name shown through `show` (each surface quotes its own way).
 */
export function resolveNames(
  directory: WorkspaceAgent[],
  names: string[],
  show: (name: string) => string,
): { recipients: WorkspaceAgent[]; problems: string[] } {
  const recipients: WorkspaceAgent[] = [];
  const problems: string[] = [];
  for (const name of names) {
    try {
      const found = resolveOne(directory, name);
      if (!recipients.includes(found)) recipients.push(found);
    } catch (e) {
      if (!(e instanceof SwitchboardError)) throw e;
      // Suggest names as people type them: the bare name when it is unique here.
      const suggestions = (((e.details.suggestions ?? e.details.candidates) as string[] | undefined) ?? []).map((s) => {
        const entry = directory.find(
          (d) => qualifiedName(d.agent) === s || (d.agent.kind === 'person' && d.agent.name === s),
        );
        return entry ? handleOf(entry, directory) : s;
      });
      problems.push(
        e.code === 'NOT_FOUND'
          ? `There is no agent ${show(name)} in this workspace${suggestions.length ? `; did you mean ${suggestions.map(show).join(', ')}?` : '.'}`
          : `${show(name)} could be ${suggestions.map(show).join(' or ')}; name it as ${show('owner/name')}.`,
      );
    }
  }
  return { recipients, problems };
}
