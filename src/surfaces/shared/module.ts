// What every chat surface module does the same way around its own parts: the
// runtime createApp built for it, its mount on the one express app, and the
// drain flag its route reads while the server stops.
import type { App } from '../../app-types.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { Mount } from '../../http/http.ts';

/** The runtime a surface module built for `app`; UNAVAILABLE with `howToConfigure` when this process has none. */
export function runtimeOf<R>(app: App, surface: ExternalSurface, howToConfigure: string): R {
  const built = app.surfaceModules.get(surface) as { runtime?: R } | undefined;
  if (!built?.runtime) throw new SwitchboardError('UNAVAILABLE', howToConfigure);
  return built.runtime;
}

/** Mounts a surface's routes when it is configured; otherwise logs `howToTurnOn` once and adds nothing. */
export const surfaceMount =
  (surface: ExternalSurface, howToTurnOn: string): Mount =>
  (web, app) => {
    const module = app.surfaceModules.get(surface);
    if (!module?.configured) {
      app.logger.info(howToTurnOn);
      return;
    }
    module.mount?.(web);
  };

/** True once the server has started stopping (app.onDrain): a surface's route then refuses new requests. */
export function drainFlag(app: App): () => boolean {
  let draining = false;
  app.onDrain.push(() => {
    draining = true;
  });
  return () => draining;
}
