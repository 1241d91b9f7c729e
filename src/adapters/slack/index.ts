import type { Mount } from '../../web/http.ts';

/** `POST /slack/events`, `/slack/install`, `/slack/oauth_redirect` (filled in by the Slack issue). */
export const mountSlack: Mount = () => {};
