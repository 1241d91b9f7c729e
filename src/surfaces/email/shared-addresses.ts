// Shared addresses: a name of a workspace connected to email that no agent or
// person has, such as feedback@<domain> (the default workspace) or
// eng+feedback@<domain>, is a channel agents can listen to (`email:feedback`).
// Mail to it is addressed to no agent: its listeners overhear it, as they hear
// a Slack channel, and file what people ask for as intake. The address takes
// mail while an agent that may hear it listens, so an owner makes one by
// letting an agent listen (`switchboard channel listen eng email:feedback
// --agent ops/triage`), and mail to it is refused again once none does.
import { SYSTEM } from '../../core/actor.ts';
import { qualifiedName, type Workspace } from '../../core/entities.ts';
import type { ListenChannels } from '../../core/listening/listen-ports.ts';
import { POSTMASTER } from './addresses.ts';
import type { EmailRuntime } from './runtime.ts';
import { EMAIL } from './topics.ts';

/** One local part, as agents' names are written; never an owner/name pair. */
const NAME = /^[a-z0-9][a-z0-9_.-]{0,38}$/;

/** The shared address a channel id names (`feedback`, lowercased); null when it cannot be one. */
export function sharedName(id: string): string | null {
  const name = id.trim().toLowerCase();
  return NAME.test(name) && name !== POSTMASTER ? name : null;
}

/** The listening place of a shared address, as listening names it. */
export const sharedChannel = (name: string) => `${EMAIL.surface}:${name}`;

/** Whether an agent that may hear it now listens to the shared address in the workspace. */
export async function isListenedTo(rt: Pick<EmailRuntime, 'core'>, ws: Workspace, name: string): Promise<boolean> {
  return (await rt.core.listening.listeners(SYSTEM, ws.id, sharedChannel(name))).length > 0;
}

/** How listening names email's channels: the shared addresses. */
export function emailListenChannels(rt: Pick<EmailRuntime, 'core'>): ListenChannels {
  return {
    ...EMAIL,
    example: sharedChannel('feedback'),
    parseChannel: sharedName,
    // A thread belongs to the shared address its first mail was written to (inbound.ts writes it with the thread).
    channelOf: (ref) => (ref.channel ? sharedName(ref.channel) : null),
    // Only the listening agents read a shared address: there is nobody to tell that one started or stopped.
    noteAddress: async () => null,
    async refusal(ws, name) {
      const taken = (await rt.core.agents.directory(ws)).find((d) => d.agent.name === name);
      if (!taken) return null;
      const who = taken.agent.kind === 'person' ? `the person @${name}` : `the agent ${qualifiedName(taken.agent)}`;
      return `${name} is the address of ${who} in ${ws.slug}, so mail to it goes there and no listener would hear it; choose another name for the shared address.`;
    },
  };
}
