// The web chat is always built: it is Switchboard's own chat, with nothing to configure.
import { WEB_CHAT } from '../../core/entities.ts';
import { defineSurface } from '../contract.ts';
import type { WebSettings } from './settings.ts';

export const webSurface = defineSurface<Partial<WebSettings>, unknown>({
  name: WEB_CHAT,
  wanted: () => true,
  load: async () => (await import('./index.ts')).createWebSurface,
});
