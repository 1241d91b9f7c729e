// Email's surface name and the topics of its jobs, each written once, apart
// from the mail libraries: tests and tools import them without loading them.
import { postChangeTopic } from '../../core/delivery/post-change.ts';

/** Email's surface name and its name in sentences, as every port it registers with the core carries them. */
export const EMAIL = { surface: 'email', label: 'Email' } as const;

/** The job that reads one stored mail and hands it to the core. */
export const EMAIL_INBOUND = `inbound.${EMAIL.surface}`;
/** The job that mails agents' messages into email conversations. */
export const EMAIL_POST = `${EMAIL.surface}.post`;
/** The job that follows a web edit or delete of a post (a mail sent cannot change: it only logs). */
export const EMAIL_POST_CHANGE = postChangeTopic(EMAIL.surface);
/** The hourly purge of received mails recorded without becoming a message (a process stopped in between). */
export const EMAIL_UPKEEP_MAILS = `upkeep.${EMAIL.surface}.mails`;
