import { z } from 'zod';
import type { Core } from '../app-types.ts';
import { SYSTEM } from '../core/actor.ts';
import type { ListenerView } from '../core/listening/listening-service.ts';
import { args, type Command, type Output } from './commands.ts';

const target = z.object({
  workspace: z.string().min(1),
  channel: z.string().min(1),
  agent: z.string().min(1, 'name the agent with --agent OWNER/NAME'),
});

const shown = (l: ListenerView) => ({
  channel: l.channel,
  surface: l.place.surface,
  channel_id: l.place.channelId,
  agent: l.agent,
  since: l.since.toISOString(),
});

async function unlisten(core: Core, raw: Record<string, unknown>): Promise<Output> {
  const a = args(target, raw);
  const r = await core.listening.unlisten(SYSTEM, a.workspace, a.channel, a.agent);
  return {
    data: { channel: r.label, agent: r.agent, removed: r.removed },
    text: r.removed
      ? `${r.agent} no longer listens to ${r.label}.`
      : `${r.agent} was not listening to ${r.label}; nothing changed.`,
  };
}

/** `channel listen`, `channel unlisten` (also `listen --stop`) and `channel listeners`. */
export const listeningCommands: Record<string, Command> = {
  async 'channel listen'(core, raw) {
    if (raw.stop) return unlisten(core, raw);
    const a = args(target, raw);
    const { listener, added } = await core.listening.listen(SYSTEM, a.workspace, a.channel, a.agent);
    return {
      data: { ...shown(listener), added },
      text: added
        ? `${listener.agent} now listens to ${listener.channel}: it gets every message there, flagged overheard, and answers only when mentioned.`
        : `${listener.agent} already listens to ${listener.channel}; nothing changed.`,
    };
  },

  'channel unlisten': unlisten,

  async 'channel listeners'(core, raw) {
    const a = args(z.object({ workspace: z.string().min(1), channel: z.string().min(1).optional() }), raw);
    const list = await core.listening.listeners(SYSTEM, a.workspace, a.channel);
    return {
      data: { listeners: list.map(shown) },
      text: list.length
        ? list.map((l) => `${l.channel}  ${l.agent}  since ${l.since.toISOString()}`).join('\n')
        : `No agent listens to ${a.channel ?? 'any channel of this workspace'}.`,
    };
  },
};
