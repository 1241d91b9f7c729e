// The web chat's channel settings (listening agents, bridges), the done-notice
// toggle and the intake page's API, on real PostgreSQL (PGlite without
// TEST_DATABASE_URL) with the Slack stand-in: owners change settings through the
// same services as the CLI, others are refused with its sentences, and intake
// never shows an item to someone who could not read where it came from; whoever
// sees an item triages it (status, notes, merging a duplicate) with the rules and
// done notices of update_intake, refused in the web's words.
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
  /** The item the intake page lists with this title, as `who` sees it. */
  const listed = async (who: HttpBrowser, title: string) =>
    (await who.api('GET', '/w/eng/intake')).json().items.find((i: { title: string }) => i.title === title);

  it("lets whoever sees an item change its status and add notes from the intake page, with update_intake's notices", async () => {
    const { app } = h.server;
    const dark = await listed(bob, 'Dark mode');
    const moved = await bob.api('PATCH', `/w/eng/intake/${dark.id}`, {
      status: 'in progress',
      note: 'Design is on it.',
    });
    expect(moved.status).toBe(200);
    expect(moved.json()).toMatchObject({
      told: 0,
      previous: 'triaged',
      item: {
        id: dark.id,
        status: 'in progress',
        notes: [expect.objectContaining({ author: 'Bob', body: 'Design is on it.' })],
      },
    });
    expect((await listed(alice, 'Dark mode')).notes).toEqual([expect.objectContaining({ body: 'Design is on it.' })]);
    expect((await app.store.audit.list(h.workspace.id, 5)).find((e) => e.action === 'intake.update')).toMatchObject({
      target: dark.id,
      details: { by: bobPerson.id, status: 'in progress', previous: 'triaged' },
    });

    // An item Bob may not see (a restricted channel he is not in, a Slack channel only owners read) is as one that is not there.
    const hidden = [
      await listed(alice, 'Salary export leaks'),
      (await alice.api('GET', '/w/eng/intake?surface=slack')).json().items[0],
    ];
    for (const id of [...hidden.map((i: { id: string }) => i.id), '00000000-0000-4000-8000-000000000000']) {
      const refused = await bob.api('PATCH', `/w/eng/intake/${id}`, { status: 'done' });
      expect(refused.status).toBe(404);
      expect(refused.json().error.message).toBe(
        `The intake item ${id} in this workspace was not found. Reload the intake page to see the items there are now.`,
      );
    }
    expect((await bob.api('PATCH', `/w/eng/intake/${dark.id}`, { status: '', note: '  ' })).json().error.message).toBe(
      'Choose a new status or write a note, then save.',
    );
    expect((await bob.api('PATCH', `/w/eng/intake/${dark.id}`, { status: 'closed' })).json().error.message).toContain(
      "status: status must be one of: new, triaged, in progress, done, won't do",
    );
    expect((await bob.api('PATCH', `/w/eng/intake/${dark.id}`, { status: 'done' }, { csrf: false })).status).toBe(403);

    // The owner marks the Slack request done: its author is told in the Slack thread where they asked, once.
    const fromSlack = hidden[1];
    const done = await alice.api('PATCH', `/w/eng/intake/${fromSlack.id}`, { status: 'done' });
    expect(done.json()).toMatchObject({ told: 1, item: { status: 'done' } });
    const notices = () =>
      standin
        .callsTo('chat.postMessage')
        .filter((c) => String(c.args.text).includes('change you asked for is now live'));
    await vi.waitFor(() => expect(notices()).toHaveLength(1));
    expect(notices()[0].args.thread_ts).toBeTruthy();
    expect((await alice.api('PATCH', `/w/eng/intake/${fromSlack.id}`, { status: 'done' })).json().told).toBe(0);
  });

  it("merges a duplicate into the item it repeats: its sources join it, told when it is done, and it becomes won't do", async () => {
    const { app } = h.server;
    const post = async (who: HttpBrowser, body: string) =>
      (await who.api('POST', `/w/eng/conversations/${ids.general}/messages`, { body })).json().message.id as string;
    const kept = await app.intake.file(h.reviewer, h.workspace, {
      title: 'CSV export',
      kind: 'feature request',
      summary: '',
      sourceIds: [await post(alice, '@reviewer please add a CSV export')],
    });
    const duplicate = await app.intake.file(h.reviewer, h.workspace, {
      title: 'Export to spreadsheet',
      kind: 'feature request',
      summary: '',
      sourceIds: [await post(bob, '@reviewer can we export to a spreadsheet?')],
    });
    expect((await alice.api('PATCH', `/w/eng/intake/${kept.id}`, { status: 'done' })).json().told).toBe(1);

    const merged = await bob.api('POST', `/w/eng/intake/${duplicate.id}/merge`, { into: kept.id });
    expect(merged.status).toBe(200);
    // Bob asked for what is live already: he is told now, in the channel where he asked.
    expect(merged.json()).toMatchObject({ told: 1, moved: 1, item: { id: kept.id, status: 'done' } });
    expect(
      merged.json().item.sources.map((s: { author: string; notified: boolean }) => [s.author, s.notified]),
    ).toEqual([
      ['alice', true],
      ['Bob', true],
    ]);
    expect(merged.json().item.notes).toEqual([
      expect.objectContaining({
        author: 'Bob',
        body: 'Merged “Export to spreadsheet” into this item, with its source.',
      }),
    ]);
    expect(await listed(bob, 'Export to spreadsheet')).toMatchObject({
      status: "won't do",
      notes: [expect.objectContaining({ body: 'Duplicate of “CSV export”; merged into it.' })],
    });
    const general = (await bob.api('GET', `/w/eng/conversations/${ids.general}`)).json().messages;
    expect(general.map((m: { body: string }) => m.body)).toContain(
      'Bob, the change you asked for is now live: “CSV export”. Thank you for raising it.',
    );
    expect((await app.store.audit.list(h.workspace.id, 5)).find((e) => e.action === 'intake.merge')).toMatchObject({
      target: kept.id,
      details: { by: bobPerson.id, duplicate: duplicate.id, sources: 1, told: 1 },
    });

    const refusal = async (id: string, into: string) =>
      (await bob.api('POST', `/w/eng/intake/${id}/merge`, { into })).json().error.message;
    expect(await refusal(duplicate.id, duplicate.id)).toBe(
      'An item cannot be merged into itself; choose the item it repeats.',
    );
    expect(await refusal(kept.id, duplicate.id)).toBe(
      '“CSV export” is done already; merge the other item into it instead.',
    );
    const secret = (await listed(alice, 'Salary export leaks')).id;
    expect(await refusal(duplicate.id, secret)).toBe(
      `The intake item ${secret} in this workspace was not found. Reload the intake page to see the items there are now.`,
    );
    expect(await refusal(duplicate.id, 'CSV export')).toBe('into: must be the id of an item on the intake page');
  });
});
