// Chat surfaces' routes on the one express app: each configured surface adds
// its own (ChatSurface.mount), given the app's sign-in (HttpKit); one that is
// not configured says once how to turn it on and adds nothing.
import { WEB_CHAT } from '../core/entities.ts';
import type { ExternalSurface } from '../core/surfaces/surface-ports.ts';
import { httpKitOf } from './http-kit.ts';
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
    surface.mount?.(web, httpKitOf(app));
  };

/**
 * Every chat surface this process built, in the registry's order. Servers mount them after every other page
 * (src/server.ts): the web chat owns `/` and answers 404 itself for unknown `/assets/…` and `/api/chat/…` paths.
 */
export const mountSurfaces: Mount = async (web, app) => {
  for (const name of app.surfaceModules.keys()) await surfaceMount(name)(web, app);
};

/** `POST /slack/events`, `GET /slack/install`, `GET /slack/oauth_redirect`, when Slack is configured. */
export const mountSlack: Mount = surfaceMount('slack');

/** `POST /api/messages`, when Teams is configured. */
export const mountTeams: Mount = surfaceMount('teams');

/** `POST /email/inbound` and the SMTP listener, as the email settings ask, when email is configured. */
export const mountEmail: Mount = surfaceMount('email');

/** `/` (the chat), `/signin`, `/signout`, `/account`, `/api/chat/…` (its JSON API and event stream) and `/assets/…`. */
export const mountWebChat: Mount = surfaceMount(WEB_CHAT);
