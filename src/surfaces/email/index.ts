// The email surface: mail to agents at EMAIL_DOMAIN arrives over SMTP (the
// listener on EMAIL_SMTP_PORT) or a mail service's webhook (POST
// /email/inbound), is stored before it is acknowledged and handed to the core
// by the `inbound.email` job; agents' answers are mailed back through
// EMAIL_SMTP_URL by the `email.post` job, threaded with the mail they answer.
// Verified senders link their address (linking.ts); a thread's audience is
// everyone on its mails (audience.ts); approvals asked in a thread are mailed
// into it with links to a page that decides (approval-jobs.ts, approval-page.ts).
import type { ChatSurface, SurfaceFactory } from '../contract.ts';
import { drainFlag, runtimeOf } from '../shared/module.ts';
import { approvalShowHandler, approvalUpdateHandler } from './approval-jobs.ts';
import { mountApprovalPage } from './approval-page.ts';
import { emailAudience } from './audience.ts';
import { loggable } from './errors.ts';
import { EMAIL_LINK_WORDING, linkDoneHandler } from './linking.ts';
import { emailLive } from './live.ts';
import type { EmailState } from './mail-repo.ts';
import { emailOutbound } from './outbound.ts';
import { emailInboundHandler, emailWebhook, INBOUND_PATH } from './receiver.ts';
import { createEmailRuntime, type EmailRuntime } from './runtime.ts';
import type { EmailSettings } from './settings.ts';
import { startSmtpListener, type SmtpListener } from './smtp-listener.ts';
import { EMAIL, EMAIL_APPROVAL_SHOW, EMAIL_APPROVAL_UPDATE, EMAIL_INBOUND, EMAIL_LINK_DONE } from './topics.ts';

export { connectEmailWorkspace, disconnectEmailWorkspace } from './connect.ts';
export type { EmailRuntime } from './runtime.ts';
export type { EmailSettings } from './settings.ts';
export type { SmtpListener } from './smtp-listener.ts';
export {
  EMAIL,
  EMAIL_APPROVAL_SHOW,
  EMAIL_APPROVAL_UPDATE,
  EMAIL_INBOUND,
  EMAIL_LINK_DONE,
  EMAIL_POST,
  EMAIL_POST_CHANGE,
} from './topics.ts';

/** The email surface of a running App: the contract's parts, its runtime, and its SMTP listener once started. */
export interface EmailSurface extends ChatSurface {
  readonly name: 'email';
  readonly runtime: EmailRuntime;
  /** The SMTP listener, once the serving process started it; null when EMAIL_SMTP_PORT is unset or not mounted. */
  listener(): Promise<SmtpListener | null>;
}

const HOW_TO_TURN_ON =
  'Email is off: set EMAIL_DOMAIN, EMAIL_SMTP_URL, and EMAIL_SMTP_PORT or EMAIL_INBOUND_SECRET (or both) to turn it on';

/** The email runtime among the surfaces a process built; UNAVAILABLE, saying how to turn email on, when it has none. */
export const emailRuntime = (surfaces: ReadonlyMap<string, ChatSurface>): EmailRuntime =>
  runtimeOf(surfaces, EMAIL.surface, `Email is not configured in this process. ${HOW_TO_TURN_ON}.`);

/**
 * Builds the email surface in every process (serve, worker, mcp-stdio, the CLI), so any of them handles stored mail
 * and mails answers; only the serving process listens for mail (mount).
 */
export const createEmailSurface: SurfaceFactory<Partial<EmailSettings>, EmailState> = (core, { override, state }) => {
  const rt = createEmailRuntime(core, state, override);
  const draining = drainFlag(core);
  let listening: Promise<SmtpListener | null> = Promise.resolve(null);
  const surface: EmailSurface = {
    name: EMAIL.surface,
    label: EMAIL.label,
    runtime: rt,
    configured: Boolean(rt.settings.domain),
    howToTurnOn: HOW_TO_TURN_ON,
    outbound: { ...emailOutbound(rt), ...emailLive(rt) },
    audience: emailAudience(rt),
    linkWording: EMAIL_LINK_WORDING,
    jobs: {
      [EMAIL_INBOUND]: emailInboundHandler(rt),
      [EMAIL_LINK_DONE]: linkDoneHandler(rt),
      [EMAIL_APPROVAL_SHOW]: approvalShowHandler(rt),
      [EMAIL_APPROVAL_UPDATE]: approvalUpdateHandler(rt),
    },
    listener: () => listening,
    mount(web, http) {
      mountApprovalPage(web, http, rt);
      const { inboundSecret, smtpPort } = rt.settings;
      if (inboundSecret) web.post(INBOUND_PATH, ...emailWebhook(rt, inboundSecret, draining));
      if (smtpPort === undefined) return;
      listening = startSmtpListener(rt, smtpPort, draining).then(
        (listener) => {
          rt.logger.info({ port: listener.port() }, 'listening for mail over SMTP');
          core.onClose(() => listener.close());
          return listener;
        },
        (err: unknown) => {
          rt.logger.error(
            { err: loggable(err), port: smtpPort },
            'the SMTP listener could not start (is EMAIL_SMTP_PORT taken, or below 1024 without the right to bind it?); mail arrives only through the webhook',
          );
          return null;
        },
      );
    },
    async checkOnStart() {
      if (rt.settings.smtpPort !== undefined) await listening;
    },
  };
  return surface;
};
