// Bolt runs the middleware of every listener it has for every request, and each step copies the request's arguments
// with an object spread that V8 runs on its slow path (some 5 µs a step on the 2-core machine; `Object.assign` would
// take a tenth of that). With a listener per event type, sixteen of them, that was about 0.2 ms of every request
// handled. So the event listeners are collected here, and Bolt gets one, which calls those of the event's type.
import { MultipleListenerError, type App as BoltApp } from '@slack/bolt';

/** What the `register…` functions of this adapter use of Bolt: events and messages go through `eventListeners`. */
export type SlackListeners = Pick<BoltApp, 'event' | 'message' | 'action' | 'view' | 'command'>;

type Handler = (args: { event: { type: string } }) => Promise<unknown>;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Listeners registered as on Bolt (`event(type, listener)`, `message(listener)`), installed on `bolt` by `install`
 * as one Bolt listener. Like Bolt's own, the listeners of one type all run, at once; one failure is rethrown as it
 * is, several as Bolt's MultipleListenerError.
 */
export function eventListeners(bolt: BoltApp): { listeners: SlackListeners; install(): void } {
  const byType = new Map<string, Handler[]>();
  let installed = false;
  const add = (type: unknown, ...rest: unknown[]) => {
    if (installed)
      throw new Error(
        'Slack event listeners are registered before they are installed on Bolt; this one would never run.',
      );
    if (typeof type !== 'string' || rest.length !== 1 || typeof rest[0] !== 'function') {
      throw new Error(
        'A Slack event listener is registered as (type, listener): one event type by name, one function.',
      );
    }
    // Bolt refuses these names too: Slack sends them all as `message` events, told apart by `channel_type`.
    if (type.startsWith('message.'))
      throw new Error(`Slack sends ${type} as a message event: register \`message\` and read its channel_type.`);
    byType.set(type, [...(byType.get(type) ?? []), rest[0] as Handler]);
  };
  const listeners = {
    event: add,
    message: (...rest: unknown[]) => add('message', ...rest),
    action: bolt.action.bind(bolt),
    view: bolt.view.bind(bolt),
    command: bolt.command.bind(bolt),
  } as unknown as SlackListeners;
  return {
    listeners,
    install() {
      installed = true;
      if (!byType.size) return;
      const types = new RegExp(`^(?:${[...byType.keys()].map(escaped).join('|')})$`);
      bolt.event(types, async (args) => {
        // Each called as a promise, as Bolt calls its own: one that throws at once does not keep the others from running.
        const settled = await Promise.allSettled(
          (byType.get(args.event.type) ?? []).map(async (listener) => listener(args)),
        );
        const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []));
        if (failed.length === 1) throw failed[0];
        if (failed.length > 1) throw new MultipleListenerError(failed);
      });
    },
  };
}
