// The simple, stated rules intake uses: which messages from unlinked people
// read as change requests, what kind they are, and the done notice's words.
import { excerpt } from '../format/markdown.ts';
import type { IntakeKind } from './intake-item.ts';

/** Words that make a message a request for a change (rather than a greeting or thanks). */
const REQUEST =
  /\b(please|pls|could you|can you|would you|can we|could we|add|fix|change|support|allow|make|remove|improve|update|need|needs|want|wish|would like|should|bug|broken|crash(es|ed)?|error|fails?|failing|not working|doesn't work|does not work|slow)\b/i;
const BUG =
  /\b(bug|broken|crash(es|ed)?|error|exception|fails?|failing|not working|doesn't work|does not work|regression)\b/i;
const COMPLAINT = /\b(annoying|frustrat\w*|terrible|awful|unacceptable|disappointed|too slow|complain\w*)\b/i;

/** Whether an unlinked person's message to an agent reads like a change request. */
export function looksLikeRequest(body: string): boolean {
  return REQUEST.test(body);
}

/**
 * The kind of an automatic item: a bug when it says something is broken, a
 * complaint when it voices displeasure, a question when it only asks (ends
 * with `?` and asks for no change), else a feature request.
 */
export function inferKind(body: string): IntakeKind {
  if (BUG.test(body)) return 'bug';
  if (COMPLAINT.test(body)) return 'complaint';
  if (body.trim().endsWith('?') && !/\b(add|fix|change|support|allow|make|remove|improve)\b/i.test(body))
    return 'question';
  return 'feature request';
}

/** An automatic item's title: the request's first line, shortened. */
export function titleFrom(body: string): string {
  return excerpt(body.split('\n')[0] ?? body, 80) || 'Request';
}

/** What the person who asked is told when the item is done. */
export function doneNotice(name: string | null, title: string): string {
  return `${name ? `${name}, the` : 'The'} change you asked for is now live: “${title}”. Thank you for raising it.`;
}

/** How to turn done notices off or on, said the way the surface takes commands. */
export function noticesHelp(say: { on: string; off: string }): string {
  return `Write ${say.off} to stop being told when what you asked for is done, or ${say.on} to be told again.`;
}

/** The answer to turning done notices on or off. */
export function noticesAnswer(on: boolean, say: { on: string }): string {
  return on
    ? 'You will be told, in the thread where you asked, when something you asked for is done.'
    : `You will not be told when something you asked for is done; ${say.on} turns it back on.`;
}
