// When the Slack surface is built, and where its module is: loaded only then, with Bolt.
import { defineSurface } from '../contract.ts';
import type { SlackState } from './installation-repo.ts';
import type { SlackSettings } from './settings.ts';

export const slackSurface = defineSurface<Partial<SlackSettings>, SlackState>({
  name: 'slack',
  wanted: (config, override) =>
    Boolean(
      override || config.slack.signingSecret || config.slack.appToken || config.slack.botToken || config.slack.clientId,
    ),
  load: async () => (await import('./index.ts')).createSlackSurface,
});
