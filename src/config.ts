import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';

/** The address `s` parsed, when it is one of these schemes and names a host; null otherwise. */
function parsedAddress(s: string, schemes: string[]): URL | null {
  try {
    const u = new URL(s);
    return schemes.includes(u.protocol) && u.hostname !== '' ? u : null;
  } catch {
    return null;
  }
}

/** An http(s) address with a host (zod's url() alone takes `localhost:3000` as an address with the scheme "localhost:"). */
const webAddress = (name: string, example: string) =>
  z.string().refine((s) => parsedAddress(s, ['http:', 'https:']) !== null, {
    message: `${name} must be an http(s) address such as ${example}`,
  });

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** An https URL, or http on this machine only (a local token authority in tests): secrets and keys never cross a network in clear. */
const endpoint = (name: string) =>
  z.string().refine(
    (s) => {
      const u = parsedAddress(s, ['http:', 'https:']);
      return u !== null && (u.protocol === 'https:' || LOOPBACK.has(u.hostname));
    },
    { message: `${name} must be an https URL (http is accepted only for 127.0.0.1 or localhost)` },
  );

// Express hands a `trust proxy` list to proxy-addr, which throws on a value it cannot read: checked here with the same
// function, so a bad value stops start-up with the others rather than when the web app is built.
const trustedProxies = (s: string) => {
  const { compile } = createRequire(createRequire(import.meta.url).resolve('express'))('proxy-addr') as {
    compile(v: string[]): unknown;
  };
  try {
    compile(s.split(',').map((v) => v.trim()));
    return true;
  } catch {
    return false;
  }
};

const schema = z.object({
  PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535, 'PORT must be a port number between 0 and 65535')
    .default(3000)
    .describe('HTTP port the server listens on. If it is taken, start-up says so: pick another.'),
  PUBLIC_URL: webAddress('PUBLIC_URL', 'https://switchboard.example.com')
    .optional()
    .describe(
      'The address people, Slack and Teams reach Switchboard at (https in production); sign-in, link and install URLs are built from it. Unset: http://localhost:PORT.',
    ),
  DATA_DIR: z
    .string()
    .min(1)
    .default('./.switchboard')
    .describe(
      "Where the embedded database (when DATABASE_URL is unset), the generated secret, the inbound journal and the CLI's control socket live.",
    ),
  DATABASE_URL: z
    .string()
    .regex(
      /^postgres(ql)?:\/\//,
      'DATABASE_URL must start with postgres:// (or leave it unset to use the embedded PGlite)',
    )
    .optional()
    .describe(
      'PostgreSQL, e.g. postgres://user:password@host:5432/switchboard. Unset: the embedded PGlite database in DATA_DIR. Several processes share one PostgreSQL to scale past one machine.',
    ),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// (or leave it unset to use the embedded worker)')
    .optional()
    .describe(
      'Redis for the job queue (BullMQ), e.g. redis://host:6379. Unset: the embedded worker inside the server process.',
    ),
  SWITCHBOARD_SECRET: z
    .string()
    .min(32, 'SWITCHBOARD_SECRET must be at least 32 characters; generate one with `openssl rand -hex 32`')
    .optional()
    .describe(
      'Encrypts stored platform tokens and signs cookies; at least 32 characters (`openssl rand -hex 32`). Required for the Slack OAuth install and when several processes share a database; otherwise generated once in DATA_DIR.',
    ),
  SLACK_SIGNING_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe(
      "From your Slack app's Basic Information page; checks that requests come from Slack. Required as soon as Slack is configured, unless SLACK_APP_TOKEN (Socket Mode) is set.",
    ),
  SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xoxb-/, 'SLACK_BOT_TOKEN must be a bot token starting with xoxb-')
    .optional()
    .describe(
      "Installs Switchboard in one Slack workspace: the app's bot token (xoxb-…). For many workspaces use SLACK_CLIENT_ID and SLACK_CLIENT_SECRET instead.",
    ),
  SLACK_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The Slack app's client id, for the OAuth install into many workspaces (GET /slack/install). Set together with SLACK_CLIENT_SECRET and SWITCHBOARD_SECRET.",
    ),
  SLACK_CLIENT_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe("The Slack app's client secret, for the OAuth install. Set together with SLACK_CLIENT_ID."),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, 'SLACK_APP_TOKEN must be an app-level token starting with xapp-')
    .optional()
    .describe(
      "Socket Mode: an app-level token (xapp-…, scope `connections:write`, from the app's Basic Information page). Set, Switchboard connects out to Slack and needs no public URL for it; POST /slack/events is not served.",
    ),
  SLACK_API_URL: webAddress('SLACK_API_URL', 'https://slack.com/api')
    .optional()
    .describe(
      "Base URL of Slack's Web API, for a proxy or a test stand-in. Unset: Slack's own (https://slack.com/api).",
    ),
  SLACK_COMMAND: z
    .string()
    .regex(/^\/[a-z0-9_-]+$/, 'SLACK_COMMAND must look like /switchboard')
    .default('/switchboard')
    .describe('The slash command as configured in the Slack app; replies and help texts name it.'),
  MICROSOFT_APP_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The Teams bot's Entra ID app registration: its Application (client) ID. Set together with MICROSOFT_APP_PASSWORD.",
    ),
  MICROSOFT_APP_PASSWORD: z.string().min(1).optional().describe("A client secret of the bot's app registration."),
  MICROSOFT_APP_TENANT_ID: z
    .string()
    .min(1)
    .optional()
    .describe('The tenant of a single-tenant bot. Unset: a multi-tenant bot.'),
  MICROSOFT_OPENID_METADATA_URL: endpoint('MICROSOFT_OPENID_METADATA_URL')
    .optional()
    .describe(
      "Bot Framework OpenID metadata, for another cloud or a local token authority (https, or http on 127.0.0.1/localhost). Unset: the public cloud's (https://login.botframework.com/v1/.well-known/openidconfiguration).",
    ),
  MICROSOFT_ENTRA_OPENID_METADATA_URL: endpoint('MICROSOFT_ENTRA_OPENID_METADATA_URL')
    .optional()
    .describe(
      "Entra ID OpenID metadata for tokens Entra issues directly (e.g. from the Bot Framework Emulator), for another cloud or a local token authority. Unset: the public cloud's.",
    ),
  MICROSOFT_TOKEN_ISSUER: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Issuer of the Bot Framework's tokens, for another cloud. Unset: the public cloud's (https://api.botframework.com).",
    ),
  MICROSOFT_LOGIN_URL: endpoint('MICROSOFT_LOGIN_URL')
    .optional()
    .describe(
      'Where the bot gets its own tokens, without the tenant, for another cloud or a local token authority. Unset: https://login.microsoftonline.com.',
    ),
  MICROSOFT_OAUTH_SCOPE: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The scope the bot asks its tokens for, for another cloud. Unset: the public cloud's (https://api.botframework.com).",
    ),
  TEAMS_PRIVACY_URL: z
    .string()
    .refine(
      (s) => parsedAddress(s, ['https:']) !== null,
      'TEAMS_PRIVACY_URL must be the https address of your privacy statement',
    )
    .optional()
    .describe(
      'The https address of your privacy statement, shown in the Teams app package (`npm run teams:package`). Unset: PUBLIC_URL.',
    ),
  TEAMS_TERMS_URL: z
    .string()
    .refine(
      (s) => parsedAddress(s, ['https:']) !== null,
      'TEAMS_TERMS_URL must be the https address of your terms of use',
    )
    .optional()
    .describe('The https address of your terms of use, shown in the Teams app package. Unset: PUBLIC_URL.'),
  EMAIL_DOMAIN: z
    .string()
    .regex(
      /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i,
      'EMAIL_DOMAIN must be a mail domain such as agents.example.com',
    )
    .optional()
    .describe(
      'The mail domain agents are written to at (its MX record points at this server, or at the service that relays to it): `reviewer@<domain>`, or `<workspace>+reviewer@<domain>`. Unset: no email.',
    ),
  EMAIL_SMTP_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535, 'EMAIL_SMTP_PORT must be a port number between 0 and 65535')
    .optional()
    .describe(
      'Port of the SMTP listener that receives mail for EMAIL_DOMAIN (25 behind the MX record, or a port a relay forwards to). Unset: no listener; mail arrives only through the webhook.',
    ),
  EMAIL_SMTP_TLS_CERT: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The SMTP listener's certificate for STARTTLS: PEM text, or the path of a PEM file (the full chain). Set together with EMAIL_SMTP_TLS_KEY. Unset: the listener offers no STARTTLS.",
    ),
  EMAIL_SMTP_TLS_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('The private key of EMAIL_SMTP_TLS_CERT: PEM text, or the path of a PEM file.'),
  EMAIL_MAX_BYTES: z.coerce
    .number()
    .int('EMAIL_MAX_BYTES must be a whole number of bytes')
    .min(1024, 'EMAIL_MAX_BYTES must be at least 1024')
    .max(52_428_800, 'EMAIL_MAX_BYTES must be at most 52428800 (50 MB)')
    .default(10_485_760)
    .describe(
      'Largest mail taken in, in bytes, attachments included (at most 50 MB); a larger one is refused (SMTP 552, HTTP 413). Default 10485760 (10 MB).',
    ),
  EMAIL_INBOUND_SECRET: z
    .string()
    .min(16, 'EMAIL_INBOUND_SECRET must be at least 16 characters; generate one with `openssl rand -hex 24`')
    .optional()
    .describe(
      'Turns on POST /email/inbound, where a mail service posts each raw message; it must send this secret (`Authorization: Bearer <secret>`, or as the password of basic auth). At least 16 characters. Unset: no webhook.',
    ),
  EMAIL_SMTP_URL: z
    .string()
    .refine(
      (s) => parsedAddress(s, ['smtp:', 'smtps:']) !== null,
      'EMAIL_SMTP_URL must be an smtp:// or smtps:// address such as smtps://user:password@smtp.example.com:465',
    )
    .optional()
    .describe(
      "The mail server agents' answers are sent through: smtp://host:587 (STARTTLS when offered) or smtps://host:465, with user:password@ when it asks for them. Required with EMAIL_DOMAIN.",
    ),
  EMAIL_DKIM_SELECTOR: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i, 'EMAIL_DKIM_SELECTOR must be a DNS label such as switchboard')
    .optional()
    .describe(
      "The DKIM selector of the key agents' mail is signed with (its public key is published at `<selector>._domainkey.<EMAIL_DOMAIN>`). Set together with EMAIL_DKIM_PRIVATE_KEY. Unset: mail goes out unsigned (or signed by the relay).",
    ),
  EMAIL_DKIM_PRIVATE_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('The DKIM private key (RSA or Ed25519): PEM text, or the path of a PEM file.'),
  APPROVAL_REMINDER_MINUTES: z.coerce
    .number()
    .int('APPROVAL_REMINDER_MINUTES must be a whole number of minutes')
    .min(0)
    .max(10080, 'APPROVAL_REMINDER_MINUTES must be at most 10080 (a week); 0 turns reminders off')
    .default(0)
    .describe(
      'Remind approvers of a still-pending approval after this many minutes (at most 10080, a week); 0 for never.',
    ),
  JOB_MAX_AGE_MINUTES: z.coerce
    .number()
    .int('JOB_MAX_AGE_MINUTES must be a whole number of minutes')
    .min(1, 'JOB_MAX_AGE_MINUTES must be at least 1')
    .max(10080, 'JOB_MAX_AGE_MINUTES must be at most 10080 (a week)')
    .default(30)
    .describe(
      'How long, in minutes, a job (a post to Slack or Teams, a received request) that meets outages or rate limits is retried before it is given up (at most 10080). Refusals stop at once, whatever this says.',
    ),
  METRICS_TOKEN: z
    .string()
    .min(16, 'METRICS_TOKEN must be at least 16 characters; generate one with `openssl rand -hex 24`')
    .optional()
    .describe(
      'Turns on GET /metrics for a scraper sending `Authorization: Bearer <token>`; at least 16 characters (`openssl rand -hex 24`). Unset: no metrics endpoint.',
    ),
  TRUST_PROXY: z
    .string()
    .refine(
      (s) => /^(true|false|\d+)$/.test(s) || trustedProxies(s),
      'TRUST_PROXY must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses, subnets and the names loopback, linklocal or uniquelocal, such as loopback,10.0.0.0/8',
    )
    .default('false')
    .describe(
      "Which reverse proxies' X-Forwarded-For to believe: true, false, a number of hops, or addresses, subnets and the names loopback, linklocal, uniquelocal (e.g. loopback,10.0.0.0/8). Off by default, so a client cannot choose the address its sign-in limit is counted under.",
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe(
      'How much the server logs: fatal, error, warn, info, debug, trace or silent. Logs never hold tokens, secrets or message bodies.',
    ),
});

/** Every setting with its check, default and a sentence for operators; docs/reference/configuration.md is generated from it. */
export const environmentSchema = schema;

export type Env = z.infer<typeof schema>;

/** Every setting read from the environment (.env.example lists each one). */
export const SETTING_NAMES = Object.keys(schema.shape) as Array<keyof Env>;

export interface Config {
  port: number;
  publicUrl: string;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  /** Present when set; start-up derives a stable one in DATA_DIR otherwise (see main). */
  secret?: string;
  logLevel: Env['LOG_LEVEL'];
  /** GET /metrics answers only a request bearing this token; without it, metrics are off. */
  metricsToken?: string;
  /** Express's `trust proxy`: which proxies' X-Forwarded-For to believe (false: none, so req.ip is the socket's address). */
  trustProxy: boolean | number | string;
  /** Remind approvers of a still-pending approval after this long; 0 for never. */
  approvalReminderMs: number;
  /** How long a job that meets outages (platform, network, database) is retried before it is given up. */
  jobMaxAgeMs: number;
  slack: {
    signingSecret?: string;
    botToken?: string;
    clientId?: string;
    clientSecret?: string;
    /** Socket Mode's app-level token (xapp-…): set, Slack is reached over an outgoing WebSocket instead of HTTP. */
    appToken?: string;
    apiUrl?: string;
    command: string;
  };
  teams: {
    appId?: string;
    appPassword?: string;
    tenantId?: string;
    /** Bot Framework endpoints for another cloud or a local authority; each unset one keeps the public cloud's. */
    openIdMetadataUrl?: string;
    entraOpenIdMetadataUrl?: string;
    tokenIssuer?: string;
    loginUrl?: string;
    oauthScope?: string;
  };
  email: {
    /** EMAIL_DOMAIN: the mail domain agents are written to at; unset, the email surface is off. */
    domain?: string;
    /** The SMTP listener's port; unset, no listener. */
    smtpPort?: number;
    /** The listener's STARTTLS certificate and key, each PEM text or a file path. */
    tlsCert?: string;
    tlsKey?: string;
    /** The largest mail taken in, in bytes. */
    maxBytes: number;
    /** The secret POST /email/inbound asks for; unset, no webhook. */
    inboundSecret?: string;
    /** Where agents' mail is sent (smtp:// or smtps://). */
    smtpUrl?: string;
    /** The DKIM selector and private key (PEM text or a file path) outgoing mail is signed with. */
    dkimSelector?: string;
    dkimPrivateKey?: string;
  };
}

/** Thrown when the environment is wrong; the message says what to set. */
export class ConfigError extends Error {}

/** Each setting checked on its own (tools that need only a few, such as `teams:package`, stop here). */
export function parseEnvironment(env: NodeJS.ProcessEnv = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `- ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Switchboard cannot start because of its environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Parses the environment once; every problem is listed with how to fix it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseEnvironment(env);
  if (Boolean(e.SLACK_CLIENT_ID) !== Boolean(e.SLACK_CLIENT_SECRET)) {
    throw new ConfigError(
      'Switchboard cannot start: set both SLACK_CLIENT_ID and SLACK_CLIENT_SECRET for the OAuth install, or neither.',
    );
  }
  if ((e.SLACK_BOT_TOKEN || e.SLACK_CLIENT_ID) && !e.SLACK_SIGNING_SECRET && !e.SLACK_APP_TOKEN) {
    throw new ConfigError(
      "Switchboard cannot start: Slack is configured but SLACK_SIGNING_SECRET is missing; copy it from your Slack app's Basic Information page (or, for Socket Mode, set SLACK_APP_TOKEN instead).",
    );
  }
  if (e.SLACK_CLIENT_ID && !e.SWITCHBOARD_SECRET) {
    throw new ConfigError(
      'Switchboard cannot start: the Slack OAuth install stores bot tokens encrypted, so set SWITCHBOARD_SECRET (e.g. `openssl rand -hex 32`).',
    );
  }
  const emailProblem = emailSettingsProblem(e);
  if (emailProblem) throw new ConfigError(`Switchboard cannot start: ${emailProblem}`);
  if (e.MICROSOFT_APP_ID && !e.MICROSOFT_APP_PASSWORD) {
    throw new ConfigError(
      "Switchboard cannot start: MICROSOFT_APP_ID is set but MICROSOFT_APP_PASSWORD is missing; create a client secret for the bot's app registration.",
    );
  }
  return {
    port: e.PORT,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    secret: e.SWITCHBOARD_SECRET,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    trustProxy:
      e.TRUST_PROXY === 'true'
        ? true
        : e.TRUST_PROXY === 'false'
          ? false
          : /^\d+$/.test(e.TRUST_PROXY)
            ? Number(e.TRUST_PROXY)
            : e.TRUST_PROXY,
    approvalReminderMs: e.APPROVAL_REMINDER_MINUTES * 60_000,
    jobMaxAgeMs: e.JOB_MAX_AGE_MINUTES * 60_000,
    slack: {
      signingSecret: e.SLACK_SIGNING_SECRET,
      botToken: e.SLACK_BOT_TOKEN,
      clientId: e.SLACK_CLIENT_ID,
      clientSecret: e.SLACK_CLIENT_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      command: e.SLACK_COMMAND,
    },
    teams: {
      appId: e.MICROSOFT_APP_ID,
      appPassword: e.MICROSOFT_APP_PASSWORD,
      tenantId: e.MICROSOFT_APP_TENANT_ID,
      openIdMetadataUrl: e.MICROSOFT_OPENID_METADATA_URL,
      entraOpenIdMetadataUrl: e.MICROSOFT_ENTRA_OPENID_METADATA_URL,
      tokenIssuer: e.MICROSOFT_TOKEN_ISSUER,
      loginUrl: e.MICROSOFT_LOGIN_URL?.replace(/\/$/, ''),
      oauthScope: e.MICROSOFT_OAUTH_SCOPE,
    },
    email: {
      domain: e.EMAIL_DOMAIN?.toLowerCase(),
      smtpPort: e.EMAIL_SMTP_PORT,
      tlsCert: e.EMAIL_SMTP_TLS_CERT,
      tlsKey: e.EMAIL_SMTP_TLS_KEY,
      maxBytes: e.EMAIL_MAX_BYTES,
      inboundSecret: e.EMAIL_INBOUND_SECRET,
      smtpUrl: e.EMAIL_SMTP_URL,
      dkimSelector: e.EMAIL_DKIM_SELECTOR,
      dkimPrivateKey: e.EMAIL_DKIM_PRIVATE_KEY,
    },
  };
}

/** What is missing or half-set among the email settings, as the end of a sentence; null when they hold together. */
function emailSettingsProblem(e: Env): string | null {
  const anyEmail = SETTING_NAMES.some((n) => n.startsWith('EMAIL_') && n !== 'EMAIL_MAX_BYTES' && e[n] !== undefined);
  if (!anyEmail) return null;
  if (!e.EMAIL_DOMAIN)
    return 'email settings are set but EMAIL_DOMAIN is missing; set the mail domain agents are written to at.';
  if (Boolean(e.EMAIL_SMTP_TLS_CERT) !== Boolean(e.EMAIL_SMTP_TLS_KEY))
    return 'set both EMAIL_SMTP_TLS_CERT and EMAIL_SMTP_TLS_KEY for STARTTLS, or neither.';
  if (Boolean(e.EMAIL_DKIM_SELECTOR) !== Boolean(e.EMAIL_DKIM_PRIVATE_KEY))
    return 'set both EMAIL_DKIM_SELECTOR and EMAIL_DKIM_PRIVATE_KEY to sign mail with DKIM, or neither.';
  if (e.EMAIL_SMTP_PORT === undefined && !e.EMAIL_INBOUND_SECRET)
    return 'EMAIL_DOMAIN is set but no mail can arrive; set EMAIL_SMTP_PORT (the SMTP listener) or EMAIL_INBOUND_SECRET (the webhook), or both.';
  if (!e.EMAIL_SMTP_URL)
    return "EMAIL_DOMAIN is set but EMAIL_SMTP_URL is missing; set the mail server agents' answers are sent through.";
  return null;
}
