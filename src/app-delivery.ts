// Wires a surface's outbound port into the one delivery path: the job that
// posts agents' messages (the topic each surface names) and the one that changes a post
// after a web edit or delete, for every surface the same way.
import type { App } from './app-types.ts';
import { postChangeHandler, postChangeTopic, queuePostChange } from './core/delivery/post-change.ts';
import { postHandler, type DeliveryDeps } from './core/delivery/post-delivery.ts';
import type { SurfaceOutbound } from './core/delivery/surface-outbound.ts';

/** What the delivery path needs from a running App; a failed notice is logged, never a reason to post again. */
export function deliveryDeps(app: App): DeliveryDeps {
  return {
    store: app.store,
    clock: app.clock,
    async notify(ws, to, body, topic) {
      try {
        await app.messaging.notice(ws, await app.orgs.systemAgent(), to, body, topic);
      } catch (err) {
        app.logger.error({ err, agentId: to.id, topic }, 'could not tell an agent that its post failed');
      }
    },
    removePost: (out, externalId) =>
      queuePostChange(app.store, { ...out.message, externalId }, out.conversation, 'delete'),
  };
}

/** Registers the surface's delivery jobs on the app's queue (mounts call it, and so does a worker-only process). */
export function registerSurfaceDelivery(app: App, port: SurfaceOutbound): void {
  app.queue.register(port.postTopic, postHandler(port, deliveryDeps(app)));
  // A web edit or delete of a person's own post there follows it (delivery/post-change.ts).
  app.queue.register(postChangeTopic(port.surface), postChangeHandler(port, { store: app.store }));
  app.outbound.set(port.surface, port);
}
