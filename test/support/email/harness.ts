// A Switchboard server with the email surface on 127.0.0.1: its SMTP listener
// on a free port, the webhook behind a secret, agents' answers mailed to a
// local SMTP sink that records them (and refuses on demand), and a DNS stand-in
// for the sender checks. Org acme (admin
// alice), workspace eng with alice/reviewer and alice/builder, connected to
// email as the domain's default. Used by the email tests.
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import type { RateLimit } from '../../../src/core/messaging/rules.ts';
import type { Mount } from '../../../src/http/http.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { mountEmail } from '../../../src/http/surface-mount.ts';
import { connectEmailWorkspace, type EmailSettings, type EmailSurface } from '../../../src/surfaces/email/index.ts';
import type { Server } from '../../../src/server.ts';
import { seedReviewer, startServerForTest } from '../server.ts';
import { dnsStub } from './dkim.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

export const DOMAIN = 'agents.test';
export const SECRET = 'inbound-secret-0123456789';

export interface EmailHarness {
  server: Server;
  workspace: Workspace;
  reviewer: Agent;
  builder: Agent;
  /** The outgoing relay agents' answers are mailed through: a local SMTP server that records them. */
  relay: SmtpSink;
  /** The port the SMTP listener took. */
  smtpPort: number;
  /** Sends a mail to the listener over a socket, as a sending mail server does. */
  send(mail: Mail.Options & { envelope?: { from: string; to: string[] } }): Promise<SMTPTransport.SentMessageInfo>;
  /** Posts a raw message to the webhook. */
  post(
    raw: Buffer | string,
    o?: { query?: string; secret?: string | null; headers?: Record<string, string> },
  ): Promise<Response>;
  stop(): Promise<void>;
}

export interface EmailHarnessOptions {
  database: Database;
  email?: Partial<EmailSettings>;
  logLines?: string[];
  /** Messages one sender may write into one conversation per window (the core's rate limit). */
  rateLimit?: RateLimit;
  /** Seed the organization, workspace and agents and connect the workspace (default); false for a restarted server. */
  seed?: boolean;
  /** Stop the queue at once: mail is stored and acknowledged but not handled (a process that dies after the 250). */
  queueStopped?: boolean;
  /** Other routes before email's (the link page, the web chat's sign-in). */
  mounts?: Mount[];
}

/** Fast pacing for tests: many answers into one thread within a second. */
export const TEST_LIMITS = [{ max: 50, perMs: 1_000 }];

export async function startEmailHarness(o: EmailHarnessOptions): Promise<EmailHarness> {
  const relay = await startSmtpSink();
  const server = await startServerForTest({
    name: 'email',
    database: o.database,
    logLines: o.logLines,
    ...(o.rateLimit ? { rateLimit: o.rateLimit } : {}),
    mounts: [...(o.mounts ?? []), mountEmail],
    surfaces: {
      email: {
        domain: DOMAIN,
        smtpPort: 0,
        smtpHost: '127.0.0.1',
        inboundSecret: SECRET,
        smtpUrl: relay.url,
        limits: TEST_LIMITS,
        // No real DNS: the sender checks ask a stand-in that publishes nothing unless a test says so.
        resolver: dnsStub([]),
        ...o.email,
      } satisfies Partial<EmailSettings>,
    },
  });
  const { app } = server;
  if (o.queueStopped) await app.queue.stop();
  if (o.seed !== false) {
    await seedReviewer(app);
    await app.agents.add(SYSTEM, { name: 'builder', owner: 'alice', displayName: 'Builder', roleLine: 'builds' });
    await app.agents.join(SYSTEM, { agent: 'alice/builder', workspace: 'eng' });
    await connectEmailWorkspace({ orgs: app.orgs, tenants: app.store.tenants }, { workspace: 'eng', asDefault: true });
  }
  const workspace = await app.orgs.workspace('eng');
  const directory = await app.agents.directory(workspace);
  const agent = (name: string) => directory.find((d) => d.agent.name === name)!.agent;
  const surface = app.surfaceModules.get('email') as EmailSurface;
  const listener = await surface.listener();
  if (!listener) throw new Error('the SMTP listener did not start');
  const smtpPort = listener.port();
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  return {
    server,
    workspace,
    reviewer: agent('reviewer'),
    builder: agent('builder'),
    relay,
    smtpPort,
    send: (mail) => transport.sendMail(mail),
    post: (raw, p = {}) =>
      fetch(`${server.url}/email/inbound${p.query ? `?${p.query}` : ''}`, {
        method: 'POST',
        headers: {
          'content-type': 'message/rfc822',
          ...(p.secret === null ? {} : { authorization: `Bearer ${p.secret ?? SECRET}` }),
          ...p.headers,
        },
        body: typeof raw === 'string' ? raw : new Uint8Array(raw),
      }),
    async stop() {
      transport.close();
      await server.stop();
      await relay.close();
    },
  };
}
