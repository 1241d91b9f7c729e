// A chat conversation's title quotes the start of the message that opened it; an edit or a delete of that message
// on the platform changes the quote too, so a redacted word does not live on in the title.

const TITLE_CHARS = 60;

/** The start of a message as a conversation's title quotes it. */
export function titleExcerpt(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, TITLE_CHARS);
}

/** What a title quotes of a message deleted on its platform. */
export const DELETED_EXCERPT = '(deleted message)';
