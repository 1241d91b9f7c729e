// What every chat surface module does the same way around its own parts: the
// runtime createApp built for it, and the drain flag its route reads while the
// server stops.
import { SwitchboardError } from '../../core/errors.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { ChatSurface, SurfaceCore } from '../contract.ts';

/**
 * The runtime a surface built, among the surfaces a process built (`app.surfaceModules`); UNAVAILABLE with
 * `howToConfigure` when this process has none.
 */
export function runtimeOf<R>(
  surfaces: ReadonlyMap<string, ChatSurface>,
  surface: ExternalSurface,
  howToConfigure: string,
): R {
  const built = surfaces.get(surface) as { runtime?: R } | undefined;
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
