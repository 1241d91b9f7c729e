// What the email surface's parts share, built once per process by its factory:
// the core, the settings, the mails repository, the pacer and the outbound
// transport (nodemailer, opened at the first send).
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { Pacer } from '../../core/delivery/pacer.ts';
import type { Workspace } from '../../core/entities.ts';
import type { SurfaceCore } from '../contract.ts';
import type { EmailMailRepo, EmailState } from './mail-repo.ts';
import { emailSettings, type EmailSettings } from './settings.ts';
import { EMAIL } from './topics.ts';

export interface EmailRuntime {
  /** The core services and ports the surface uses (never the App or the store). */
  core: SurfaceCore;
  settings: EmailSettings;
  logger: Logger;
  mails: EmailMailRepo;
  /** Keeps each thread's pace of answers. */
  pacer: Pacer;
  /** The transport to EMAIL_SMTP_URL, opened at the first call; null when no relay is set. */
  transport(): Transporter | null;
}

export function createEmailRuntime(
  core: SurfaceCore,
  state: EmailState,
  overrides: Partial<EmailSettings> = {},
): EmailRuntime {
  const settings = emailSettings(core.config, overrides);
  const logger = core.logger.child({ surface: EMAIL.surface });
  let transport: Transporter | null = null;
  core.onClose(() => transport?.close());
  return {
    core,
    settings,
    logger,
    mails: state.mails,
    pacer: new Pacer(settings.limits),
    transport() {
      if (!settings.smtpUrl) return null;
      // One connection per send: a pool would keep sockets open in every process that never mails.
      transport ??= nodemailer.createTransport(settings.smtpUrl);
      return transport;
    },
  };
}

/** nodemailer's DKIM option for a mail from the domain, when a key is configured. */
export const dkimOption = ({ settings: { domain, dkim } }: Pick<EmailRuntime, 'settings'>) =>
  dkim ? { dkim: { domainName: domain, keySelector: dkim.selector, privateKey: dkim.privateKey } } : {};

/** The workspace a tenant (a workspace slug connected to email, or the default `*`) maps to; null when it does not. */
export async function workspaceOfTenant(rt: Pick<EmailRuntime, 'core'>, tenant: string): Promise<Workspace | null> {
  const id = await rt.core.tenants.workspaceOf(EMAIL.surface, tenant);
  return id ? rt.core.orgs.findWorkspace(id) : null;
}
