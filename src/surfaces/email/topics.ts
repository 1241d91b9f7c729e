// Email's surface name and the topics of its jobs, each written once, apart
// from the mail libraries: tests and tools import them without loading them.
import { approvalShowTopic, approvalUpdateTopic } from '../../core/approvals/approval-service.ts';
import { postChangeTopic } from '../../core/delivery/post-change.ts';
import { linkDoneTopic } from '../../core/linking/link-service.ts';

/** Email's surface name and its name in sentences, as every port it registers with the core carries them. */
export const EMAIL = { surface: 'email', label: 'Email' } as const;

/** The job that reads one stored mail and hands it to the core. */
export const EMAIL_INBOUND = `inbound.${EMAIL.surface}`;
/** The job that mails agents' messages into email conversations. */
export const EMAIL_POST = `${EMAIL.surface}.post`;
/** The job that follows a web edit or delete of a post (a mail sent cannot change: it only logs). */
export const EMAIL_POST_CHANGE = postChangeTopic(EMAIL.surface);
/** Mails "Linked as @alice" to the address just linked. */
export const EMAIL_LINK_DONE = linkDoneTopic(EMAIL.surface);
/** Mails an approval asked in an email thread into that thread, with its Approve and Reject links. */
export const EMAIL_APPROVAL_SHOW = approvalShowTopic(EMAIL.surface);
/** Mails how a settled approval was settled into the thread it was mailed to. */
export const EMAIL_APPROVAL_UPDATE = approvalUpdateTopic(EMAIL.surface);
