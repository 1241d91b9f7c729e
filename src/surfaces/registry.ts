// Every chat surface Switchboard knows, in the order they are built. A surface
// is loaded (with its SDK) only when the config asks for it.
import type { SurfaceDefinition } from './contract.ts';
import { emailSurface } from './email/definition.ts';
import { slackSurface } from './slack/definition.ts';
import { teamsSurface } from './teams/definition.ts';
import { webSurface } from './web/definition.ts';

export const SURFACES: readonly SurfaceDefinition[] = [slackSurface, teamsSurface, emailSurface, webSurface];
