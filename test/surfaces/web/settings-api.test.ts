// The web chat's channel settings (listening agents, bridges), the done-notice
// toggle and the intake page's API, on real PostgreSQL (PGlite without
// TEST_DATABASE_URL) with the Slack stand-in: owners change settings through the
// same services as the CLI, others are refused with its sentences, and intake
// never shows an item to someone who could not read where it came from.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Person } from '../../../src/core/entities.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/slack/harness.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { openEvents } from '../../support/web/sse.ts';

const PASSWORD = 'correct horse battery';

describe('channel settings, notices and intake in the web chat API', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let alice: HttpBrowser;
  let bob: HttpBrowser;
  let bobPerson: Person;
  const ids = { general: '', secret: '' };

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startSlackStandin()]);
    standin.setChannelMembers('C0BRIDGED', [SLACK_DEFAULTS.botUserId]);
    standin.setChannelMembers('C0PRIVATE', [SLACK_DEFAULTS.botUserId]);
    standin.handle('conversations.info', ({ args }) => ({
      ok: true,
      channel: { id: args.channel, name: args.channel === 'C0BRIDGED' ? 'eng-chat' : 'hush' },
    }));
    h = await startHarness({ database: db, standin, seed: true, allMounts: true });
    const { app } = h.server;
    bobPerson = await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', displayName: 'Bob' });
    await app.orgs.addWorkspaceMember(SYSTEM, 'eng', 'bob', 'editor');
    for (const handle of ['alice', 'bob'])
      await app.store.people.setPasswordHash((await app.store.people.get(handle))!.id, await hashPassword(PASSWORD));
    alice = new HttpBrowser(h.server.url);
    bob = new HttpBrowser(h.server.url);
    await Promise.all([alice.signIn('alice', PASSWORD), bob.signIn('bob', PASSWORD)]);
    ids.general = (await alice.api('GET', '/w/eng/sidebar'))
      .json()
      .channels.find((c: { name: string }) => c.name === 'general').id;
    ids.secret = (await alice.api('POST', '/w/eng/channels', { name: 'secret', restricted: true })).json().channel.id;
  }, 120_000); // a cold start (database, Slack stand-in, server, sign-ins) on a loaded machine
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it("lets an owner choose a listening agent, shows it to everyone, and refuses others with the CLI's sentence", async () => {
    const added = await alice.api('POST', `/w/eng/channels/${ids.general}/listeners`, { agent: 'alice/reviewer' });
    expect(added.status).toBe(201);
    expect(added.json().settings.listeners).toEqual([
      expect.objectContaining({ agent: 'alice/reviewer', displayName: 'Reviewer' }),
    ]);
    expect(added.json().settings.candidates).toEqual([]);

    const seen = (await bob.api('GET', `/w/eng/channels/${ids.general}/settings`)).json();
    expect(seen).toMatchObject({ canManage: false, listeners: [{ agent: 'alice/reviewer' }], candidates: [] });
    const refused = await bob.api('DELETE', `/w/eng/channels/${ids.general}/listeners/${h.reviewer.id}`);
    expect(refused.status).toBe(403);
    expect(refused.json().error).toEqual({
      code: 'NOT_PERMITTED',
      message: 'Only an owner of eng can choose which agents listen to its channels; ask one of its owners.',
    });
    const cli = await runCommand(h.server.app, 'channel listeners', { workspace: 'eng', channel: 'general' });
    expect((cli.output!.data.listeners as Array<{ agent: string }>).map((l) => l.agent)).toEqual(['alice/reviewer']);

    const removed = await alice.api('DELETE', `/w/eng/channels/${ids.general}/listeners/${h.reviewer.id}`);
    expect(removed.json()).toMatchObject({
      removed: true,
      settings: { listeners: [], candidates: [{ name: 'alice/reviewer' }] },
    });
  });

  it("tells every open chat that a channel's listeners changed, even when the CLI changed them", async () => {
    const events = await openEvents(bob, 'eng');
    try {
      await events.next((e) => e.event === 'ready', 20_000);
      await runCommand(h.server.app, 'channel listen', {
        workspace: 'eng',
        channel: 'general',
        agent: 'alice/reviewer',
      });
      expect((await events.next((e) => e.event === 'channel', 20_000)).data).toEqual({ id: ids.general });
      await runCommand(h.server.app, 'channel unlisten', {
        workspace: 'eng',
        channel: 'general',
        agent: 'alice/reviewer',
      });
      await expect.poll(() => events.events.filter((e) => e.event === 'channel').length).toBe(2);
    } finally {
      events.close();
    }
  });

  it('does not tell people about a restricted channel they are not in', async () => {
    const events = await openEvents(bob, 'eng');
    try {
      await events.next((e) => e.event === 'ready', 20_000);
      await alice.api('POST', `/w/eng/channels/${ids.secret}/listeners`, { agent: 'alice/reviewer' });
      await alice.api('POST', `/w/eng/channels/${ids.general}/listeners`, { agent: 'alice/reviewer' });
      await events.next((e) => e.event === 'channel', 20_000);
      expect(events.events.filter((e) => e.event === 'channel').map((e) => e.data.id)).toEqual([ids.general]);
      expect((await bob.api('GET', `/w/eng/channels/${ids.secret}/settings`)).status).toBe(404);
    } finally {
      events.close();
      await alice.api('DELETE', `/w/eng/channels/${ids.secret}/listeners/${h.reviewer.id}`);
      await alice.api('DELETE', `/w/eng/channels/${ids.general}/listeners/${h.reviewer.id}`);
    }
  });

  it('lets an owner bridge a channel to Slack, private ones only when allowed, and refuses others', async () => {
    const bridged = await alice.api('POST', `/w/eng/channels/${ids.general}/bridges`, {
      surface: 'slack',
      channel: 'C0BRIDGED',
    });
    expect(bridged.status).toBe(201);
    const [bridge] = bridged.json().settings.bridges;
    expect(bridge).toMatchObject({
      surface: 'slack',
      label: 'Slack',
      title: '#eng-chat',
      externalChannelId: 'C0BRIDGED',
      allowPrivate: false,
    });

    const open = (await bob.api('GET', `/w/eng/channels/${ids.general}/settings`)).json();
    expect(open.bridges).toEqual([
      { id: null, surface: 'slack', label: 'Slack', title: '#eng-chat', externalChannelId: null, allowPrivate: false },
    ]);
    const notOwner = await bob.api('POST', `/w/eng/channels/${ids.general}/bridges`, {
      surface: 'slack',
      channel: 'C0PRIVATE',
    });
    expect(notOwner.status).toBe(403);
    expect(notOwner.json().error.message).toBe('Only an owner of eng can bridge channels; ask one of its owners.');
    expect((await bob.api('DELETE', `/w/eng/channels/${ids.general}/bridges/${bridge.id}`)).json().error.message).toBe(
      'Only an owner of eng can remove bridges; ask one of its owners.',
    );

    const privateNo = await alice.api('POST', `/w/eng/channels/${ids.secret}/bridges`, {
      surface: 'slack',
      channel: 'C0PRIVATE',
    });
    expect(privateNo.status).toBe(403);
    // What to do instead, in the web chat's words: the box of the form, not the command line's flag.
    expect(privateNo.json().error.message).toBe(
      '#secret is a restricted channel: bridging it would show its messages to everyone in the outside channel. ' +
        'If that is what you mean, say so: tick "Allow this restricted channel\'s messages into the outside channel" ' +
        'below the bridge form, and bridge it again.',
    );
    const privateYes = await alice.api('POST', `/w/eng/channels/${ids.secret}/bridges`, {
      surface: 'slack',
      channel: 'C0PRIVATE',
      allowPrivate: true,
    });
    expect(privateYes.json().settings.bridges).toEqual([
      expect.objectContaining({ externalChannelId: 'C0PRIVATE', allowPrivate: true }),
    ]);

    const bad = await alice.api('POST', `/w/eng/channels/${ids.general}/bridges`, { surface: 'irc', channel: '#x' });
    // Only the chat apps configured here are offered and taken (Slack in this test).
    expect(bad.json().error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('surface must be one of the chat apps configured here: "slack" (Slack).'),
    });
    expect((await alice.api('GET', `/w/eng/channels/${ids.general}/settings`)).json().bridgeTo).toEqual([
      { surface: 'slack', label: 'Slack', example: 'C0123ABCD' },
    ]);
    expect((await bob.api('GET', `/w/eng/channels/${ids.general}/settings`)).json().bridgeTo).toEqual([]);
    expect((await alice.api('DELETE', `/w/eng/channels/${ids.secret}/bridges/${bridge.id}`)).status).toBe(404);
    const gone = await alice.api('DELETE', `/w/eng/channels/${ids.general}/bridges/${bridge.id}`);
    expect(gone.json().settings.bridges).toEqual([]);
    expect((await runCommand(h.server.app, 'bridge list', { workspace: 'eng' })).output!.data.bridges).toEqual([
      expect.objectContaining({ channel: 'secret' }),
    ]);
  });

  it("turns done notices off and on with the same stored choice as the chat apps' command", async () => {
    expect((await bob.api('GET', '/me/notices')).json()).toEqual({ on: true });
    expect((await bob.api('POST', '/me/notices', { on: false })).json()).toEqual({ on: false });
    expect(await h.server.app.store.intake.optedOut([`person:${bobPerson.id}`])).toBe(true);
    expect((await bob.api('POST', '/me/notices', { on: 'no' })).status).toBe(400);
    expect((await bob.api('POST', '/me/notices', { on: true }, { csrf: false })).status).toBe(403);
    expect((await bob.api('POST', '/me/notices', { on: true })).json()).toEqual({ on: true });
    expect(await h.server.app.store.intake.optedOut([`person:${bobPerson.id}`])).toBe(false);
  });

  it('shows intake only to people who could read every source, with counts per source and status, and filters', async () => {
    const { app } = h.server;
    const ws = h.workspace;
    const post = async (channel: string, body: string) =>
      (await alice.api('POST', `/w/eng/conversations/${channel}/messages`, { body })).json().message.id as string;
    const file = (title: string, id: string, kind: 'bug' | 'feature request') =>
      app.intake.file(h.reviewer, ws, { title, kind, summary: '', sourceIds: [id] });
    const open = await file(
      'Dark mode',
      await post(ids.general, '@reviewer please add a dark mode'),
      'feature request',
    );
    await file('Salary export leaks', await post(ids.secret, '@reviewer the salary export is broken'), 'bug');
    // A Slack user without a linked account asks an agent for a fix: Switchboard files it by itself.
    await mentionAndReceive(h, 'the deploy button fails');
    // Filed after the agent got the mention, in the same inbound job: the inbox can show it first.
    const fromSlack = await vi.waitFor(
      async () => {
        const [item] = await app.intake.list(ws, { surface: 'slack', limit: 5 });
        if (!item) throw new Error('the Slack request is not filed yet');
        return item;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(fromSlack.title).toMatch(/the deploy button fails/);
    await app.intake.update(h.reviewer, ws, { id: open.id, status: 'triaged' });

    const forBob = (await bob.api('GET', '/w/eng/intake')).json();
    expect(forBob.items.map((i: { title: string }) => i.title)).toEqual(['Dark mode']);
    expect(forBob.counts).toEqual({ total: 1, bySource: { web: 1 }, byStatus: { triaged: 1 } });
    expect(forBob.items[0].sources).toEqual([
      expect.objectContaining({
        surface: 'web',
        where: 'Web chat',
        href: `#/w/eng/c/${ids.general}`,
        external: false,
        author: 'alice',
        excerpt: '@reviewer please add a dark mode',
      }),
    ]);

    const forAlice = (await alice.api('GET', '/w/eng/intake')).json();
    expect(forAlice.items.map((i: { title: string }) => i.title)).toEqual([
      fromSlack.title,
      'Salary export leaks',
      'Dark mode',
    ]);
    expect(forAlice.counts).toEqual({ total: 3, bySource: { web: 2, slack: 1 }, byStatus: { new: 2, triaged: 1 } });
    const slack = (await alice.api('GET', '/w/eng/intake?surface=slack')).json();
    expect(slack.items.map((i: { id: string }) => i.id)).toEqual([fromSlack.id]);
    expect(slack.items[0].sources[0]).toMatchObject({
      surface: 'slack',
      where: 'Slack',
      external: true,
      href: expect.stringMatching(/^https:\/\//),
    });
    expect(slack.counts.total).toBe(3);
    expect(
      (await alice.api('GET', '/w/eng/intake?status=triaged&kind='))
        .json()
        .items.map((i: { title: string }) => i.title),
    ).toEqual(['Dark mode']);
    expect(
      (await alice.api('GET', '/w/eng/intake?kind=bug&surface=web'))
        .json()
        .items.map((i: { title: string }) => i.title),
    ).toEqual(['Salary export leaks']);
    const wrong = await alice.api('GET', '/w/eng/intake?status=closed');
    expect(wrong.status).toBe(400);
    expect(wrong.json().error.message).toContain("status must be one of: new, triaged, in progress, done, won't do");
  });
});
