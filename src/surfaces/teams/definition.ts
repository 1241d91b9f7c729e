// When the Teams surface is built, and where its module is: loaded only then, with botbuilder.
import { defineSurface } from '../contract.ts';
import type { TeamsSettings } from './settings.ts';
import type { TeamsState } from './state.ts';

export const teamsSurface = defineSurface<Partial<TeamsSettings>, TeamsState>({
  name: 'teams',
  wanted: (config, override) => Boolean(override || (config.teams.appId && config.teams.appPassword)),
  load: async () => (await import('./index.ts')).createTeamsSurface,
});
