// Linking a Slack account end to end: the first time an unlinked person
// talks to an agent they get one DM with a link; following it, signing in on
// the web and confirming links them; from then on agents see them as
// themselves. Expired, used and forged links, cross-site posts, a second
// person, and a workspace that requires linking are all refused and change nothing.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { oneTimeTokens } from '../../../src/infra/db/schema.ts';
import { LINK_AGAIN } from '../../../src/surfaces/slack/linking.ts';
import { hashSecret } from '../../../src/core/agents/tokens.ts';
import { LinkService } from '../../../src/core/linking/link-service.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import type { ExternalKey } from '../../../src/core/surfaces/surface-ports.ts';
import { inboxItemOut } from '../../../src/mcp/render.ts';
import { dmChannelId, SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { blockActions } from '../../support/slack/signed-request.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import {
  followAndSignIn,
  linkPath,
  linkUrlOf,
  promptedPath,
  startLinkingWorld,
  type LinkingWorld,
} from '../../support/slack/linking-world.ts';
import { SLACK_LINK_DONE } from '../../../src/surfaces/slack/topics.ts';

const ALICE = 'U0ALICE01';
const CAROL = 'U0CAROL01';
const DAN = 'U0DAN0001';
const ERIN = 'U0ERIN001';
const FRANK = 'U0FRANK01';
const GINA = 'U0GINA001';
const key = (user: string): ExternalKey => ({
  surface: 'slack',
  tenantId: SLACK_DEFAULTS.teamId,
  externalUserId: user,
});

describe('linking a Slack account', () => {
  let w: LinkingWorld;
  const seen: InboxItem[] = [];
  const received = (body: string) =>
    vi.waitFor(
      async () => {
        seen.push(...(await w.h.server.app.messaging.checkInbox(w.h.reviewer, w.h.workspace, 50).then((r) => r.items)));
        const found = seen.find((i) => i.message.body === body);
        if (!found) throw new Error(`reviewer has not received "${body}"`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
  const identity = (user: string) => w.h.server.app.store.identities.find(key(user));
  const nonceOf = (path: string) => path.split('/').pop()!;

  beforeAll(async () => {
    w = await startLinkingWorld({
      [ALICE]: 'Alice Adams',
      [CAROL]: 'Carol Chen',
      [DAN]: 'Dan Doe',
      [ERIN]: 'Erin Eng',
      [FRANK]: 'Frank Fox',
    });
  });
  afterAll(async () => {
    await w?.close();
  });

  it("sends exactly one link DM the first time an unlinked person talks to an agent, and their messages are a guest's", async () => {
    await w.mention(ALICE, '@reviewer first question');
    await w.mention(ALICE, '@reviewer second question');
    await w.command(ALICE, 'reviewer third question');
    const first = await received('@reviewer first question');
    await received('@reviewer second question');
    await received('third question');
    expect(inboxItemOut(first)).toMatchObject({ asker: { handle: null, linked: false }, sender: { name: 'guest' } });

    const path = await promptedPath(w, ALICE);
    expect(w.prompts(ALICE)).toHaveLength(1);
    const [prompt] = w.prompts(ALICE);
    expect(prompt.text).toContain('Link your account');
    expect(JSON.stringify(prompt.blocks)).toContain(LINK_AGAIN);
    // At least 128 random bits in the link, and only their hash is stored.
    const nonce = nonceOf(path);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await w.db.db
      .select()
      .from(oneTimeTokens)
      .where(eq(oneTimeTokens.tokenHash, hashSecret(nonce)));
    expect(row).toMatchObject({ purpose: 'link', personId: null, usedAt: null });
    expect(row.subject).toMatchObject({ surface: 'slack', tenantId: SLACK_DEFAULTS.teamId, externalUserId: ALICE });
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(row.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect(JSON.stringify(row)).not.toContain(nonce);
  });

  it('links after signing in on the web and confirming, says "Linked as @alice" in the DM, and the next message is Alice\'s', async () => {
    const path = await promptedPath(w, ALICE);
    const { b, page, next } = await followAndSignIn(w, path, 'alice');
    expect(next).toBe(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Alice Adams');
    expect(page.text).toContain('(@alice)');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const done = await b.form(path, {});
    expect(done.status).toBe(200);
    expect(done.text).toContain('Linked as @alice.');
    const alice = (await w.h.server.app.store.people.get('alice'))!;
    expect(await identity(ALICE)).toMatchObject({ personId: alice.id });
    await vi.waitFor(
      () =>
        expect(w.standin.messages(dmChannelId(ALICE)).map((m) => m.text)).toContainEqual(
          expect.stringContaining('Linked as @alice'),
        ),
      { timeout: 20_000, interval: 50 },
    );

    await w.mention(ALICE, '@reviewer now as myself');
    const item = inboxItemOut(await received('@reviewer now as myself'));
    expect(item.asker).toEqual({ handle: 'alice', linked: true });
    expect(item.sender).toMatchObject({ kind: 'person', name: 'alice' });
    // Linked people are never prompted again.
    expect(w.prompts(ALICE)).toHaveLength(1);
  });

  it('refuses a used link, a forged one and an expired one, changing nothing', async () => {
    const used = await promptedPath(w, ALICE);
    const b = new HttpBrowser(w.h.server.url);
    const again = await b.get(used);
    expect(again.status).toBe(410);
    expect(again.text).toContain('already used');
    expect(again.text).toContain('/switchboard link');

    const forged = `/link/${'A'.repeat(43)}`;
    expect((await b.get(forged)).status).toBe(410);
    expect((await b.get('/link/not-a-nonce')).text).toContain('not a link Switchboard sent');

    // A link issued 16 minutes ago.
    const { app } = w.h.server;
    const dan = await app.store.identities.upsert(key(DAN), { displayName: 'Dan Doe', fetchedAt: new Date() });
    const past = new LinkService(app.store, { now: () => new Date(Date.now() - 16 * 60_000) }, app.config.publicUrl);
    const expired = linkPath((await past.offer(dan)).url);
    const signedIn = await followAndSignIn(w, (await app.links.offer(dan)).url.replace(/^.*\/link\//, '/link/'), 'bob');
    const refused = await signedIn.b.get(expired);
    expect(refused.status).toBe(410);
    expect(refused.text).toContain('expired');
    for (const path of [used, forged, expired]) {
      const post = await signedIn.b.form(path, {});
      expect(post.status).toBe(410);
    }
    expect((await identity(DAN))?.personId).toBeNull();
    const [row] = await w.db.db
      .select()
      .from(oneTimeTokens)
      .where(eq(oneTimeTokens.tokenHash, hashSecret(nonceOf(expired))));
    expect(row.usedAt).toBeNull();
  });

  it('says "Linked as" once when Slack took the DM but its answer was lost: the retry finds the post', async () => {
    const { app } = w.h.server;
    const gina = await app.store.identities.upsert(key(GINA), { displayName: 'Gina Gray', fetchedAt: new Date() });
    const path = linkPath((await app.links.offer(gina)).url);
    const { b } = await followAndSignIn(w, path, 'bob');
    w.standin.failNext('chat.postMessage', { dropAfterHandling: true });
    expect((await b.form(path, {})).status).toBe(200);
    const confirmations = () =>
      w.standin.messages(dmChannelId(GINA)).filter((m) => (m.text ?? '').includes('Linked as @bob'));
    await vi.waitFor(
      async () => {
        const jobs = await app.store.outbox.list({ topic: SLACK_LINK_DONE });
        expect(jobs.filter((j) => j.payload.identityId === gina.id).map((j) => j.status)).toEqual(['done']);
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(confirmations()).toHaveLength(1);
    expect(w.standin.callsTo('conversations.history').some((c) => c.args.channel === dmChannelId(GINA))).toBe(true);
  }, 60_000);

  it('refuses a cross-site POST without the CSRF token, changing nothing', async () => {
    const { app } = w.h.server;
    const erin = await app.store.identities.upsert(key(ERIN), { displayName: 'Erin Eng', fetchedAt: new Date() });
    const path = linkPath((await app.links.offer(erin)).url);
    const { b } = await followAndSignIn(w, path, 'bob');
    const forged = await b.request('POST', path, {
      body: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(403);
    const noToken = await b.form(path, {}, { csrf: false });
    expect(noToken.status).toBe(403);
    expect((await identity(ERIN))?.personId).toBeNull();
    const [row] = await w.db.db
      .select()
      .from(oneTimeTokens)
      .where(eq(oneTimeTokens.tokenHash, hashSecret(nonceOf(path))));
    expect(row.usedAt).toBeNull();
    // The page's own form still works.
    expect((await b.form(path, {})).status).toBe(200);
    expect((await identity(ERIN))?.personId).toBe((await app.store.people.get('bob'))!.id);
  });

  it('refuses to link an account already linked, to the same person or a second one', async () => {
    const { app } = w.h.server;
    const carol = await app.store.identities.upsert(key(CAROL), { displayName: 'Carol Chen', fetchedAt: new Date() });
    const [one, two] = [linkPath((await app.links.offer(carol)).url), linkPath((await app.links.offer(carol)).url)];
    const asBob = await followAndSignIn(w, one, 'bob');
    expect((await asBob.b.form(one, {})).status).toBe(200);

    const asAlice = await followAndSignIn(w, two, 'alice');
    expect(asAlice.page.status).toBe(409);
    expect(asAlice.page.text).toContain('already linked to another Switchboard account');
    await asAlice.b.get('/'); // a page carrying this session's CSRF token
    const post = await asAlice.b.form(two, {});
    expect(post.status).toBe(409);
    expect(post.text).toContain('already linked to @bob');
    const sameAgain = await asBob.b.get(two);
    expect(sameAgain.text).toContain('already linked to your Switchboard account');
    expect((await identity(CAROL))?.personId).toBe((await app.store.people.get('bob'))!.id);
  });

  it('answers /switchboard link with a fresh link or who you are linked as, and /switchboard unlink removes the link', async () => {
    const linked = await (await w.command(ALICE, 'link')).json();
    expect(linked).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('linked as @alice') });
    const unlinked = await (await w.command(ALICE, 'unlink')).json();
    expect(unlinked.text).toContain('no longer linked to @alice');
    expect((await identity(ALICE))?.personId).toBeNull();
    const fresh = await (await w.command(ALICE, 'link')).json();
    expect(fresh.response_type).toBe('ephemeral');
    expect(linkUrlOf(fresh)).toMatch(/\/link\/[A-Za-z0-9_-]{43}$/);
    expect((await (await w.command(ALICE, 'unlink')).json()).text).toContain('not linked');
  });

  it('replaces the DM prompt with a fresh link when "Send me a new link" is clicked', async () => {
    const [prompt] = w.prompts(ALICE);
    const before = linkUrlOf(prompt);
    const res = await w.h.post(
      blockActions({
        user: ALICE,
        channel: dmChannelId(ALICE),
        message: { ts: prompt.ts, text: prompt.text },
        actions: [{ action_id: LINK_AGAIN, value: 'again' }],
        response_url: w.standin.responseUrl(),
      }),
    );
    expect(res.status).toBe(200);
    await vi.waitFor(() => expect(w.standin.callsTo('chat.update').length).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 50,
    });
    const updated = w.standin.message(dmChannelId(ALICE), prompt.ts)!;
    expect(linkUrlOf(updated)).not.toBe(before);
    expect((await w.h.server.app.links.check(linkPath(linkUrlOf(updated)!).split('/').pop()!)).state).toBe('valid');
  });

  it("with linking required, an unlinked person's message never reaches the agent: they get the link prompt instead", async () => {
    const { app } = w.h.server;
    await app.store.workspaces.update(w.h.workspace.id, { requireLinking: true });
    try {
      await w.mention(FRANK, '@reviewer let me in');
      const told = await vi.waitFor(
        () => {
          const found = w.standin.callsTo('chat.postEphemeral').find((c) => c.args.user === FRANK);
          if (!found) throw new Error('Frank was not told');
          return found;
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(told.args.text).toContain('linked their Slack account');
      expect(told.args.text).toContain('I sent you a link in a DM');
      await promptedPath(w, FRANK);
      expect(JSON.stringify(w.prompts(FRANK)[0].blocks)).toContain('answers only people who have linked');

      const slash = await (await w.command(FRANK, 'reviewer please?')).json();
      expect(slash).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('/switchboard link') });
      expect(w.standin.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('please?'))).toHaveLength(
        0,
      );
      expect(w.prompts(FRANK)).toHaveLength(1);

      // Setting or clearing the channel's default agent is refused the same way, and changes nothing.
      const key = {
        surface: 'slack',
        tenantId: SLACK_DEFAULTS.teamId,
        scope: 'channel',
        scopeId: 'C0GENERAL',
      } as const;
      const before = await app.store.defaultAgents.get(key);
      for (const words of ['default reviewer', 'default off']) {
        expect(await (await w.command(FRANK, words)).json()).toMatchObject({
          response_type: 'ephemeral',
          text: slash.text,
        });
      }
      expect(await app.store.defaultAgents.get(key)).toBe(before);
      expect(
        w.standin.responseUrlPosts.filter((p) => (p.body as { response_type?: string }).response_type === 'in_channel'),
      ).toHaveLength(0);
    } finally {
      await app.store.workspaces.update(w.h.workspace.id, { requireLinking: false });
    }
    await w.mention(FRANK, '@reviewer guests welcome again');
    await received('@reviewer guests welcome again');
    expect(seen.map((i) => i.message.body)).not.toContain('@reviewer let me in');
    expect(seen.map((i) => i.message.body)).not.toContain('please?');
  });
});
