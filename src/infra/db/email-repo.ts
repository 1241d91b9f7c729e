// What only the email surface keeps: the mails of its threads (src/surfaces/email/mail-repo.ts).
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { EmailMailRepo, NewMail, StoredMail } from '../../surfaces/email/mail-repo.ts';
import type { Db } from './client.ts';
import { emailMails } from './schema.ts';

const columns = {
  workspaceId: emailMails.workspaceId,
  mailId: emailMails.mailId,
  messageId: emailMails.messageId,
  rootMailId: emailMails.rootMailId,
  direction: emailMails.direction,
  parties: emailMails.parties,
  references: emailMails.refs,
  subject: emailMails.subject,
  details: emailMails.details,
  sentAt: emailMails.sentAt,
  createdAt: emailMails.createdAt,
};

export class DrizzleEmailMailRepo implements EmailMailRepo {
  constructor(private readonly db: Db) {}

  async add(m: NewMail): Promise<boolean> {
    const rows = await this.db
      .insert(emailMails)
      .values({
        workspaceId: m.workspaceId,
        mailId: m.mailId,
        messageId: m.messageId,
        rootMailId: m.rootMailId,
        direction: m.direction,
        parties: m.parties,
        refs: m.references,
        subject: m.subject,
        details: m.details,
      })
      .onConflictDoNothing()
      .returning({ mailId: emailMails.mailId });
    return rows.length > 0;
  }

  async get(workspaceId: string, mailId: string): Promise<StoredMail | null> {
    const [row] = await this.db
      .select(columns)
      .from(emailMails)
      .where(and(eq(emailMails.workspaceId, workspaceId), eq(emailMails.mailId, mailId)))
      .limit(1);
    return row ?? null;
  }

  async findMany(workspaceId: string, mailIds: string[]): Promise<StoredMail[]> {
    if (!mailIds.length) return [];
    return this.db
      .select(columns)
      .from(emailMails)
      .where(and(eq(emailMails.workspaceId, workspaceId), inArray(emailMails.mailId, mailIds)));
  }

  async thread(workspaceId: string, rootMailId: string, limit: number): Promise<StoredMail[]> {
    const rows = await this.db
      .select(columns)
      .from(emailMails)
      .where(and(eq(emailMails.workspaceId, workspaceId), eq(emailMails.rootMailId, rootMailId)))
      .orderBy(desc(emailMails.createdAt), desc(emailMails.mailId))
      .limit(limit);
    return rows.reverse();
  }

  async attach(workspaceId: string, mailId: string, messageId: string): Promise<void> {
    await this.db
      .update(emailMails)
      .set({ messageId })
      .where(and(eq(emailMails.workspaceId, workspaceId), eq(emailMails.mailId, mailId)));
  }

  async forget(workspaceId: string, mailId: string): Promise<void> {
    await this.db
      .delete(emailMails)
      .where(and(eq(emailMails.workspaceId, workspaceId), eq(emailMails.mailId, mailId), isNull(emailMails.messageId)));
  }

  async markSent(workspaceId: string, mailId: string, at: Date, response: string): Promise<void> {
    await this.db
      .update(emailMails)
      .set({ sentAt: at, details: sql`${emailMails.details} || ${JSON.stringify({ relay: response })}::jsonb` })
      .where(and(eq(emailMails.workspaceId, workspaceId), eq(emailMails.mailId, mailId)));
  }
}
