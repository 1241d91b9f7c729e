// What the email surface reads from the configuration, parsed once when the
// surface is built: the domain, the two inbound ways (SMTP listener, webhook),
// the outbound relay and the DKIM key. PEM settings may be the text itself or
// the path of a file holding it.
import { readFileSync } from 'node:fs';
import type { Config } from '../../config.ts';
import type { PaceWindow } from '../../core/delivery/pacer.ts';

/** How often agents' answers go out into one email thread: people read mail, not a chat stream. */
export const EMAIL_LIMITS: PaceWindow[] = [
  { max: 1, perMs: 2_000 },
  { max: 10, perMs: 60_000 },
  { max: 60, perMs: 3_600_000 },
];

/** What the email surface needs from the configuration. */
export interface EmailSettings {
  /** EMAIL_DOMAIN, lowercased; empty when email is not configured. */
  domain: string;
  /** EMAIL_SMTP_PORT: the SMTP listener's port (0: any free port); absent, no listener. */
  smtpPort?: number;
  /** The address the listener binds to (every interface unless a test says 127.0.0.1). */
  smtpHost: string;
  /** The STARTTLS certificate and key (PEM), from EMAIL_SMTP_TLS_CERT and EMAIL_SMTP_TLS_KEY. */
  tls?: { cert: string; key: string };
  /** EMAIL_MAX_BYTES: the largest mail taken in. */
  maxBytes: number;
  /** EMAIL_INBOUND_SECRET: the webhook's shared secret; absent, no webhook. */
  inboundSecret?: string;
  /** EMAIL_SMTP_URL: where agents' mail is sent. */
  smtpUrl?: string;
  /** EMAIL_DKIM_SELECTOR and EMAIL_DKIM_PRIVATE_KEY (PEM). */
  dkim?: { selector: string; privateKey: string };
  /** Answers allowed into one email thread per time window. */
  limits: PaceWindow[];
  /** Most of our addresses one mail may be sent to (RCPT TO); more are refused for later. */
  maxRecipients: number;
  /** Most people an answer is mailed to (the thread's participants beyond it are left out, and logged). */
  maxParticipants: number;
  /** The DNS resolver the sender checks ask (DKIM keys, SPF, DMARC); absent, the system's. Tests point it at a stand-in. */
  resolver?: (name: string, rrtype: string) => Promise<unknown>;
  /** How long a sender's name, as their last mail gave it, is kept before the next mail's is taken. */
  profileTtlMs: number;
}

/** PEM text as given, or read from the file a setting names; throws a sentence naming the setting when it cannot. */
export function pemOf(name: string, value: string): string {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  try {
    return readFileSync(value, 'utf8');
  } catch (e) {
    throw new Error(
      `${name} is neither PEM text nor a file that can be read (${(e as NodeJS.ErrnoException).code ?? 'unreadable'}: ${value}); give the PEM itself or the path of a PEM file.`,
    );
  }
}

export function emailSettings(config: Config, overrides: Partial<EmailSettings> = {}): EmailSettings {
  const e = config.email;
  return {
    domain: e.domain ?? '',
    smtpPort: e.smtpPort,
    smtpHost: '0.0.0.0',
    tls:
      e.tlsCert && e.tlsKey
        ? { cert: pemOf('EMAIL_SMTP_TLS_CERT', e.tlsCert), key: pemOf('EMAIL_SMTP_TLS_KEY', e.tlsKey) }
        : undefined,
    maxBytes: e.maxBytes,
    inboundSecret: e.inboundSecret,
    smtpUrl: e.smtpUrl,
    dkim:
      e.dkimSelector && e.dkimPrivateKey
        ? { selector: e.dkimSelector, privateKey: pemOf('EMAIL_DKIM_PRIVATE_KEY', e.dkimPrivateKey) }
        : undefined,
    limits: EMAIL_LIMITS,
    maxRecipients: 50,
    maxParticipants: 50,
    profileTtlMs: 24 * 3600_000,
    ...overrides,
    ...(overrides.domain ? { domain: overrides.domain.toLowerCase() } : {}),
  };
}
