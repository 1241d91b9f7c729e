// Chat surfaces' routes on the one express app: each configured surface adds
// its own (ChatSurface.mount); one that is not configured says once how to
// turn it on and adds nothing.
import type { ExternalSurface } from '../core/surfaces/surface-ports.ts';
import type { Mount } from './http.ts';

/** Mounts one surface's routes when it is built and configured; otherwise logs how to turn it on. */
const surfaceMount =
  (name: ExternalSurface): Mount =>
  (web, app) => {
    const surface = app.surfaceModules.get(name);
    if (!surface) return;
    if (!surface.configured) {
      app.logger.info(surface.howToTurnOn);
      return;
    }
    surface.mount?.(web);
  };

/** Every chat surface this process built, in the registry's order. */
export const mountSurfaces: Mount = async (web, app) => {
  for (const name of app.surfaceModules.keys()) await surfaceMount(name)(web, app);
};

/** `POST /slack/events`, `GET /slack/install`, `GET /slack/oauth_redirect`, when Slack is configured. */
export const mountSlack: Mount = surfaceMount('slack');

/** `POST /api/messages`, when Teams is configured. */
export const mountTeams: Mount = surfaceMount('teams');
