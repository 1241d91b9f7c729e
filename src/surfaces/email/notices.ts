// Done notices by mail. When something a person asked for by mail is done,
// intake tells them with a message from Switchboard answering theirs
// (IntakeService.tellDone): it is mailed to them alone, as a reply in their
// thread, from the address they wrote to, with a link that stops these
// notices. That is the opt-out chat users give with `notices off`, for the
// sender's address in that workspace (or for the person it is linked to). The
// link opens a page that asks first, so a mail scanner that follows links
// changes nothing; its button, or a mail program's one-click unsubscribe
// (RFC 8058: List-Unsubscribe with List-Unsubscribe-Post), posts to it.
import type { Express, Request, Response } from 'express';
import type { Agent } from '../../core/entities.ts';
import { SYSTEM_HANDLE } from '../../core/organizations/org-service.ts';
import type { ExternalIdentity } from '../../core/surfaces/surface-ports.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { cardPage } from '../../http/layout.ts';
import type { HttpKit } from '../contract.ts';
import { DEFAULT_TENANT, isOurs, oursOn } from './addresses.ts';
import { authorIdOf } from './inbound.ts';
import type { MailAddress, StoredMail } from './mail-repo.ts';
import type { EmailRuntime } from './runtime.ts';
import type { EmailThread } from './thread-id.ts';
import { EMAIL } from './topics.ts';
import type { SenderCheck } from './verify.ts';

/** The page the link opens (GET asks, POST does it). */
export const NOTICES_PATH = '/email/notices';

/** The headers a notice's DKIM signature covers: RFC 8058 asks for both List-Unsubscribe fields among them. */
export const NOTICE_SIGNED_HEADERS = [
  'From',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'In-Reply-To',
  'References',
  'Auto-Submitted',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
].join(':');

const purpose = (identityId: string) => `email-done-notices:${identityId}`;

/** The link's token: the asker's chat identity and its signature (SWITCHBOARD_SECRET), so nobody can make another's. */
export const noticesToken = (rt: Pick<EmailRuntime, 'core'>, identityId: string) =>
  `${identityId}.${rt.core.secrets.sign(purpose(identityId))}`;

/** The identity a token names; null when it was not made here (cut short, altered, or signed with another secret). */
export function identityOfToken(rt: Pick<EmailRuntime, 'core'>, token: unknown): string | null {
  if (typeof token !== 'string') return null;
  const [identityId, signature, ...rest] = token.split('.');
  if (!identityId || !signature || rest.length || !/^[0-9a-f]{64}$/.test(signature)) return null;
  return rt.core.secrets.verify(purpose(identityId), signature) ? identityId : null;
}

/** How a done notice is mailed, where it differs from an agent's answer. */
export interface NoticeMail {
  /** The mail it answers: the person's request. */
  answered: StoredMail;
  /** The person alone (their Reply-To when they gave one). */
  to: MailAddress[];
  /** The address of ours they wrote to (or the thread's mails name); null when none names one of this workspace. */
  fromAddress: string | null;
  /** Markdown added under the notice: the link that stops these notices (empty without one). */
  footer: string;
  headers: Record<string, string>;
}

/**
 * The notice's mail when `t` is Switchboard telling a person about their request (a message of the system agent
 * answering one of the thread's received mails); null for anything else, which is mailed as any answer.
 */
export async function noticeMail(
  rt: EmailRuntime,
  t: { workspaceId: string; thread: EmailThread; sender: Agent; replyTo?: string | null },
  mails: StoredMail[],
): Promise<NoticeMail | null> {
  const { thread } = t;
  if (t.sender.ownerHandle !== SYSTEM_HANDLE || !t.replyTo) return null;
  const answered = mails.find((x) => x.direction === 'in' && x.messageId === t.replyTo);
  const sender = answered?.parties.from[0];
  if (!answered || !sender) return null;
  // Never one of our own addresses (a Reply-To naming one): agents read the notice in Switchboard.
  const to = (answered.parties.replyTo.length ? answered.parties.replyTo : [sender]).filter(
    (a) => !isOurs(a.address, rt.settings.domain),
  );
  const plain = (await rt.core.tenants.workspaceOf(EMAIL.surface, DEFAULT_TENANT)) === t.workspaceId;
  // The address they wrote to; when they wrote to it in Bcc, one of ours the thread's other mails name.
  const [written] = [
    ...oursOn([answered], rt.settings.domain, thread.tenant, plain),
    ...oursOn(mails, rt.settings.domain, thread.tenant, plain),
  ];
  const fromAddress = written?.address ?? null;
  const check = answered.details.verification as SenderCheck | undefined;
  const identity = await rt.core.identities.find({
    surface: EMAIL.surface,
    tenantId: thread.tenant,
    externalUserId: authorIdOf(check ?? { verified: false, address: '', reason: '' }, sender),
  });
  if (!identity) return { answered, to, fromAddress, footer: '', headers: {} };
  const url = `${rt.core.config.publicUrl}${NOTICES_PATH}?t=${noticesToken(rt, identity.id)}`;
  return {
    answered,
    to,
    fromAddress,
    footer: `Switchboard writes when something you asked for is done. [Stop these notices](${url})`,
    headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** The subject of the opt-out: the person the identity is linked to, else the identity (as `notices off` chooses). */
const subjectOf = (i: ExternalIdentity) => (i.personId ? { personId: i.personId } : { identityId: i.id });

/** The address an email identity stands for (`unverified:` dropped: the link was mailed to it either way). */
const addressOf = (i: ExternalIdentity) => i.externalUserId.replace(/^unverified:/, '');

/** `GET` and `POST /email/notices?t=…`: the page the link opens, and the opt-out (or back in, with `on=1`). */
export function mountNotices(web: Express, rt: EmailRuntime, http: HttpKit): void {
  const page = (res: Response, status: number, title: string, body: SafeHtml) => {
    http.securityHeaders(res);
    res.status(status).type('html').send(cardPage(title, body));
  };
  const identityOf = async (req: Request, res: Response): Promise<ExternalIdentity | null> => {
    const id = identityOfToken(rt, req.query.t);
    const identity = id ? await rt.core.identities.get(id) : null;
    if (identity?.surface === EMAIL.surface) return identity;
    page(
      res,
      400,
      'This link does not work',
      html`<p>It may have been cut short on its way. Open the link at the end of the latest notice Switchboard mailed you, all of it.</p>`,
    );
    return null;
  };
  const form = (req: Request, on: boolean, label: string) =>
    html`<form method="post" action="${NOTICES_PATH}?t=${String(req.query.t)}${on ? html`&amp;on=1` : null}" class="stack"><button type="submit" class="primary">${label}</button></form>`;
  const state = (req: Request, i: ExternalIdentity, on: boolean) =>
    on
      ? html`<p>Switchboard mails <strong>${addressOf(i)}</strong> when something asked for from it is done.</p>
${form(req, false, 'Stop these notices')}`
      : html`<p>Switchboard does not tell <strong>${addressOf(i)}</strong> when something asked for from it is done.</p>
${form(req, true, 'Tell me again')}`;

  // Asks, and changes nothing: mail scanners open links.
  web.get(NOTICES_PATH, async (req, res, next) => {
    try {
      const identity = await identityOf(req, res);
      if (!identity) return;
      const on = await rt.core.intake.noticesOn(subjectOf(identity));
      page(res, 200, on ? 'Stop done notices?' : 'Done notices are off', state(req, identity, on));
    } catch (err) {
      next(err);
    }
  });

  // The page's button, or a mail program's one-click unsubscribe (its body, `List-Unsubscribe=One-Click`, is not needed).
  web.post(NOTICES_PATH, async (req, res, next) => {
    try {
      const identity = await identityOf(req, res);
      if (!identity) return;
      const on = req.query.on === '1';
      await rt.core.intake.setNotices(subjectOf(identity), on);
      rt.logger.info({ identityId: identity.id, on }, on ? 'done notices by mail back on' : 'done notices by mail off');
      page(res, 200, on ? 'Done notices are on' : 'Done notices are off', state(req, identity, on));
    } catch (err) {
      next(err);
    }
  });
}
