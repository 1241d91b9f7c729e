// What every chat surface module does the same way around its own parts: the
// runtime createApp built for it, and the drain flag its route reads while the
// server stops.
import type { App } from '../../app-types.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { SurfaceCore } from '../contract.ts';

/** The runtime a surface module built for `app`; UNAVAILABLE with `howToConfigure` when this process has none. */
export function runtimeOf<R>(app: App, surface: ExternalSurface, howToConfigure: string): R {
  const built = app.surfaceModules.get(surface) as { runtime?: R } | undefined;
  if (!built?.runtime) throw new SwitchboardError('UNAVAILABLE', howToConfigure);
  return built.runtime;
}

/** True once the server has started stopping: a surface's route then refuses new requests. */
export function drainFlag(core: Pick<SurfaceCore, 'onDrain'>): () => boolean {
  let draining = false;
  core.onDrain(() => {
    draining = true;
  });
  return () => draining;
}
