// One suite run against every SurfacePort implementation (Slack and Teams, on
// their stand-ins, email, and the web chat): the promises the inbound service relies
// on — it never has to guard a call to the platform, the surface's names agree
// with its outbound port, and a chat app's tenant mapping comes from the shared
// store (the web chat's tenant is the workspace itself).
import { TurnContext, type Activity } from 'botbuilder';
import { mountSlack } from '../../../src/http/surface-mount.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { slackPort } from '../../../src/surfaces/slack/inbound.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { connectSlackTeam } from '../../../src/surfaces/slack/index.ts';
import { addressOf, teamsPort } from '../../../src/surfaces/teams/inbound.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import type { App } from '../../../src/app-types.ts';
import type { SurfacePort } from '../../../src/core/surfaces/inbound.ts';
import { webPort } from '../../../src/surfaces/web/port.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { personalMessage } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { emailPort } from '../../../src/surfaces/email/inbound.ts';
import { connectEmailWorkspace, emailRuntime } from '../../../src/surfaces/email/index.ts';

const SLACK_USER = 'U0CONTRACT1';

interface PortCase {
  name: string;
  /** True for a chat app, whose posts go through the outbox and whose tenant maps to a workspace in the shared store. */
  chatApp: boolean;
  /** The port for one message, the tenant it belongs to, and the author it was written by. */
  make(app: App): { port: SurfacePort; tenantId: string; authorId: string };
}

let db: Database;
let teams: TeamsStandin;
let slack: SlackStandin;
let h: Harness;

const cases: PortCase[] = [
  {
    name: 'Slack',
    chatApp: true,
    make(app) {
      const rt = slackRuntime(app);
      return {
        port: slackPort(rt, rt.clients.for(slack.botToken), SLACK_DEFAULTS.teamId, 'C0CONTRACT'),
        tenantId: SLACK_DEFAULTS.teamId,
        authorId: SLACK_USER,
      };
    },
  },
  {
    name: 'Teams',
    chatApp: true,
    make(app) {
      const rt = teamsRuntime(app.surfaceModules);
      // The stand-in's wire shape is the Bot Framework activity the adapter would hand the turn.
      const activity = personalMessage(teams, {
        text: 'hello',
        from: TEAMS_DEFAULTS.users.alice,
      }) as unknown as Activity;
      const address = addressOf(activity)!;
      const context = new TurnContext(rt.adapter!, activity);
      return {
        port: teamsPort(rt, context, address),
        tenantId: address.tenant,
        authorId: TEAMS_DEFAULTS.users.alice.aadObjectId,
      };
    },
  },
  {
    name: 'email',
    chatApp: true,
    make(app) {
      // A mail's sender, checked or not: the port is built per mail, for its sender.
      const sender = { name: 'Contract Person', address: 'contract@example.com' };
      return {
        port: emailPort(emailRuntime(app.surfaceModules), sender, {
          verified: false,
          address: sender.address,
          reason: 'not signed',
        }),
        tenantId: h.workspace.slug,
        authorId: `unverified:${sender.address}`,
      };
    },
  },
  {
    name: 'web chat',
    chatApp: false,
    make(app) {
      // A signed-in person writes as their person agent; the workspace they write in is the tenant.
      return {
        port: webPort(
          { orgs: app.orgs, channels: app.channels, clock: app.clock, publicUrl: app.config.publicUrl },
          h.workspace,
        ),
        tenantId: h.workspace.id,
        authorId: h.reviewer.ownerId,
      };
    },
  },
];

beforeAll(async () => {
  [db, teams, slack] = await Promise.all([pgliteDb.open(), startTeamsStandin(), startSlackStandin()]);
  h = await startHarness({
    database: db,
    standin: teams,
    mounts: [mountSlack],
    slack: { paceMs: 0 },
    env: {
      SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret,
      SLACK_API_URL: slack.url,
      // Email is built from its settings alone; nothing here listens or mails.
      EMAIL_DOMAIN: 'agents.test',
      EMAIL_INBOUND_SECRET: 'contract-secret-0123456789',
      EMAIL_SMTP_URL: 'smtp://127.0.0.1:25',
    },
  });
  await connectEmailWorkspace({ orgs: h.server.app.orgs, tenants: h.server.app.store.tenants }, { workspace: 'eng' });
  await connectSlackTeam(slackRuntime(h.server.app), {
    workspace: 'eng',
    teamId: SLACK_DEFAULTS.teamId,
    botToken: slack.botToken,
  });
  slack.setUser(SLACK_USER, { real_name: 'Contract Person', display_name: 'contract' });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await Promise.all([teams?.close(), slack?.close()]);
  await db?.close();
});

describe.each(cases)('the $name surface port', (c) => {
  it('names itself as its outbound port does (a chat app; the web chat shows messages live and has none), and trusts a profile for a while', () => {
    const { port } = c.make(h.server.app);
    const outbound = h.server.app.outbound.get(port.surface);
    expect(outbound?.label ?? null, 'a chat app registered an outbound port under the same name and label').toBe(
      c.chatApp ? port.label : null,
    );
    expect(port.label.length).toBeGreaterThan(0);
    expect(port.profileTtlMs).toBeGreaterThan(0);
  });

  it('finds the workspace its tenant is connected to (a chat app through the shared mapping), and none for a stranger', async () => {
    const { port, tenantId } = c.make(h.server.app);
    expect((await port.workspaceOf(tenantId))?.id).toBe(h.workspace.id);
    expect(await h.server.app.store.tenants.workspaceOf(port.surface, tenantId)).toBe(
      c.chatApp ? h.workspace.id : null,
    );
    expect(await port.workspaceOf('not-a-connected-tenant')).toBeNull();
  });

  it('answers a profile, a permalink and a link prompt without throwing, whatever the platform says', async () => {
    const { port, tenantId, authorId } = c.make(h.server.app);
    const profile = await port.profile(authorId);
    if (profile) {
      expect(profile.displayName.length).toBeGreaterThan(0);
      expect(profile.fetchedAt).toBeInstanceOf(Date);
    }
    const link = await port.permalink('1700000000.000100');
    expect(link === null || /^https?:\/\//.test(link)).toBe(true);
    const identity = await h.server.app.store.identities.upsert({
      surface: port.surface,
      tenantId,
      externalUserId: authorId,
    });
    expect(typeof (await port.sendLinkPrompt(identity, 'first'))).toBe('boolean');
  });

  it('quotes names and says how to link in sentences of its own', () => {
    const { port } = c.make(h.server.app);
    expect(port.showName('reviewer')).toContain('reviewer');
    const [sent, notSent] = [port.linkHowTo(true), port.linkHowTo(false)];
    expect(sent.length).toBeGreaterThan(0);
    expect(notSent.length).toBeGreaterThan(0);
    expect(sent).not.toBe(notSent);
  });

  it("routes through the one inbound service: a connected tenant's directory holds the workspace's agents", async () => {
    const { port, tenantId } = c.make(h.server.app);
    const target = await h.server.app.inbound.target(port, tenantId);
    expect(target?.workspace.id).toBe(h.workspace.id);
    expect(target?.directory.map((d) => d.agent.id)).toContain(h.reviewer.id);
  });

  it("delivers a known author's message through the one inbound service, naming unknown agents its own way", async () => {
    const { port } = c.make(h.server.app);
    const app = h.server.app;
    const v = await chatOf(app).chat.viewer(h.reviewer.ownerId, h.workspace.id);
    const general = (await chatOf(app).chat.sidebar(v)).channels.find((ch) => ch.name === 'general')!;
    const text = `@reviewer @nobody please look (${c.name})`;
    const { result, notices } = await app.inbound.deliverKnown(port, {
      workspace: h.workspace,
      sender: v.agent,
      conversation: (await app.store.messages.getConversation(h.workspace.id, general.id))!,
      text,
      names: ['reviewer', 'nobody'],
    });
    expect(result.message?.surface).toBe(port.surface);
    expect(result.recipients).toEqual([expect.objectContaining({ agent_id: h.reviewer.id, status: 'delivered' })]);
    expect(notices).toEqual([expect.stringContaining(port.showName('nobody'))]);
    expect((await app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items.map((i) => i.message.body)).toContain(
      text,
    );
  });
});

describe('the web chat surface port', () => {
  it('links a message to its conversation in the web chat, and gives no link for a message it does not hold', async () => {
    const app = h.server.app;
    const port = webPort(
      { orgs: app.orgs, channels: app.channels, clock: app.clock, publicUrl: app.config.publicUrl },
      h.workspace,
    );
    const v = await chatOf(app).chat.viewer(h.reviewer.ownerId, h.workspace.id);
    const general = (await chatOf(app).chat.sidebar(v)).channels.find((ch) => ch.name === 'general')!;
    const posted = await chatOf(app).chat.post(v, general.id, 'where is this written?');
    expect(await port.permalink(posted.message!.id)).toBe(
      `${app.config.publicUrl}/#/w/${h.workspace.slug}/c/${general.id}`,
    );
    expect(await port.permalink('00000000-0000-0000-0000-000000000000')).toBeNull();
    expect((await port.profile(h.reviewer.ownerId))?.displayName.length).toBeGreaterThan(0);
  });
});
