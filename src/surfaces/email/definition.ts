// When the email surface is built, and where its module is: loaded only then, with the mail libraries.
import { defineSurface } from '../contract.ts';
import type { EmailState } from './mail-repo.ts';
import type { EmailSettings } from './settings.ts';

export const emailSurface = defineSurface<Partial<EmailSettings>, EmailState>({
  name: 'email',
  wanted: (config, override) => Boolean(override || config.email.domain),
  load: async () => (await import('./index.ts')).createEmailSurface,
});
