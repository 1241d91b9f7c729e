// The mails of email threads, as only the email surface keeps them: who was on
// each mail (so an answer goes to the right people), its Message-ID and the
// chain it carried (so replies thread, and a retried send is recognised), and
// what was checked about it. Implemented in src/infra/db/email-repo.ts and
// handed to the surface's factory as its state (src/infra/db/surface-state.ts).

/** A mailbox as a header names it. */
export interface MailAddress {
  /** The display name ("Alice Example"); empty when the header gave none. */
  name: string;
  /** `local@domain`, the domain lowercased. */
  address: string;
}

/** Who a mail was from and to, as its headers said. */
export interface MailParties {
  from: MailAddress[];
  replyTo: MailAddress[];
  to: MailAddress[];
  cc: MailAddress[];
}

/** One mail of an email thread in one workspace: received (`in`) or sent by an agent (`out`). */
export interface StoredMail {
  workspaceId: string;
  /** Its Message-ID, without the angle brackets. */
  mailId: string;
  /**
   * The Switchboard message it is (received: the message stored; sent: the agent's message mailed). Null for a
   * received mail while the core is handling it: it is recorded first, so an answer written at once finds its thread.
   */
  messageId: string | null;
  /** The Message-ID of the mail that started the thread (the conversation's key is made from it). */
  rootMailId: string;
  direction: 'in' | 'out';
  parties: MailParties;
  /** The Message-IDs it referred to (References, then In-Reply-To), oldest first, as many as are kept. */
  references: string[];
  subject: string;
  /**
   * What was read or checked: for a received mail the sender's verification (`verification`), its attachments
   * (name, type, size), the complete text (`full`); for a sent one the relay's answer.
   */
  details: Record<string, unknown>;
  /** When the relay accepted a sent mail; null before (an attempt whose outcome is not known) and for received mail. */
  sentAt: Date | null;
  createdAt: Date;
}

export type NewMail = Omit<StoredMail, 'createdAt' | 'sentAt'>;

export interface EmailMailRepo {
  /** Records a mail; false when the workspace holds this Message-ID already (nothing is changed then). */
  add(mail: NewMail): Promise<boolean>;
  /** The mail with this Message-ID in the workspace; null when there is none. */
  get(workspaceId: string, mailId: string): Promise<StoredMail | null>;
  /** The mails among these Message-IDs the workspace holds (any order). */
  findMany(workspaceId: string, mailIds: string[]): Promise<StoredMail[]>;
  /** The latest `limit` mails of a thread, oldest first. */
  thread(workspaceId: string, rootMailId: string, limit: number): Promise<StoredMail[]>;
  /** Ties a received mail to the message it became. */
  attach(workspaceId: string, mailId: string, messageId: string): Promise<void>;
  /** Forgets a received mail that became no message (refused, or for nobody); a mail tied to a message stays. */
  forget(workspaceId: string, mailId: string): Promise<void>;
  /** Records that the relay accepted a sent mail, with what it answered. */
  markSent(workspaceId: string, mailId: string, at: Date, response: string): Promise<void>;
}

/** The tables only the email surface keeps, handed to its factory as its state. */
export interface EmailState {
  mails: EmailMailRepo;
}
