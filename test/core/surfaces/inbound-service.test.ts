// The one inbound pipeline, driven through a fake surface port that records
// what the core asked of it: routing (named agents, thread follow-ups, DM and
// channel defaults), the asker (guest or linked person), the link prompt sent
// once, the linking-required refusal, and messages that reach nobody.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../src/app.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { InboundMessage, SurfacePort } from '../../../src/core/surfaces/inbound.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { testApp } from '../../support/world.ts';
import { pgliteDb } from '../../support/db.ts';

const TENANT = 'T0INBOUND';

/** A surface that knows one tenant and records prompts and profile reads. */
class FakeSurface implements SurfacePort {
  readonly surface = 'slack' as const;
  readonly label = 'Chatland';
  readonly profileTtlMs = 60_000;
  prompts: Array<{ user: string; reason: string }> = [];
  profileReads: string[] = [];
  profileFails = false;
  constructor(private readonly workspace: () => Workspace | null) {}
  async workspaceOf(tenantId: string) {
    return tenantId === TENANT ? this.workspace() : null;
  }
  async profile(authorId: string) {
    this.profileReads.push(authorId);
    return this.profileFails
      ? null
      : { displayName: `Person ${authorId}`, email: `${authorId.toLowerCase()}@example.test`, fetchedAt: new Date() };
  }
  async sendLinkPrompt(identity: { externalUserId: string }, reason: string) {
    this.prompts.push({ user: identity.externalUserId, reason });
    return true;
  }
  async permalink(messageId: string) {
    return `https://chat.example.test/m/${messageId}`;
  }
  showName(name: string) {
    return `«${name}»`;
  }
  linkHowTo(justSent: boolean) {
    return justSent ? 'I sent you a link' : 'ask me for a link';
  }
}

let seq = 0;
/** A message in channel C1 starting its own thread, unless `thread` names the thread it replies in. */
function msg(text: string, o: Partial<InboundMessage> & { thread?: string } = {}): InboundMessage {
  const id = `m${++seq}`;
  const root = o.thread ?? (o.place === 'dm' ? null : id);
  return {
    surface: 'slack',
    tenantId: TENANT,
    channelId: 'C1',
    place: 'channel',
    conversationKey: `fake:${o.channelId ?? 'C1'}:${root ?? 'dm'}`,
    externalRef: { channel: o.channelId ?? 'C1' },
    messageId: id,
    threadRootId: root,
    authorId: 'U1',
    text,
    names: [...text.matchAll(/@([a-z/]+)/g)].map((m) => m[1]),
    addressed: true,
    ...o,
  };
}

describe('the inbound service', () => {
  let database: Database;
  let app: App;
  let ws: Workspace;
  let reviewer: Agent;
  let tester: Agent;
  let port: FakeSurface;
  const bodies = async (agent: Agent) =>
    (await app.messaging.checkInbox(agent, ws, 50)).items.map((i) => i.message.body);

  beforeAll(async () => {
    database = await pgliteDb.open();
    app = await testApp(database);
    await app.orgs.init({ org: 'Inbound', admin: 'alice' });
    ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'inbound' });
    for (const name of ['reviewer', 'tester']) {
      await app.agents.add(SYSTEM, { name, owner: 'alice', displayName: name });
      await app.agents.join(SYSTEM, { agent: `alice/${name}`, workspace: ws.slug });
    }
    reviewer = (await app.store.agents.byQualifiedName('alice', 'reviewer'))!;
    tester = (await app.store.agents.byQualifiedName('alice', 'tester'))!;
    port = new FakeSurface(() => ws);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('delivers to the agents named, as a guest with the identity and profile recorded, and prompts to link once', async () => {
    const first = await app.inbound.receive(port, msg('@reviewer @tester look at this', { authorId: 'U0GUEST' }));
    expect(first).toMatchObject({ kind: 'handled', notices: [] });
    const [item] = (await app.messaging.checkInbox(reviewer, ws, 50)).items.filter(
      (i) => i.message.body === '@reviewer @tester look at this',
    );
    expect(item.sender.name).toBe('guest');
    expect(item.conversation).toMatchObject({
      surface: 'slack',
      title: 'Chatland: @reviewer @tester look at this',
      permalink: expect.stringContaining('/m/'),
    });
    const identity = await app.store.identities.get(item.asker.identityId!);
    expect(identity).toMatchObject({ externalUserId: 'U0GUEST', displayName: 'Person U0GUEST', personId: null });
    expect(await bodies(tester)).toContain('@reviewer @tester look at this');
    await app.inbound.receive(port, msg('@reviewer again', { authorId: 'U0GUEST' }));
    expect(port.prompts.filter((p) => p.user === 'U0GUEST')).toEqual([{ user: 'U0GUEST', reason: 'first' }]);
    // The profile was fresh, so the second message did not read it again.
    expect(port.profileReads.filter((u) => u === 'U0GUEST')).toHaveLength(1);
  });

  it('records the identity even when the platform gives no profile', async () => {
    port.profileFails = true;
    try {
      expect(await app.inbound.receive(port, msg('@reviewer no profile', { authorId: 'U0NOPROF' }))).toMatchObject({
        kind: 'handled',
      });
      expect(
        await app.store.identities.find({ surface: 'slack', tenantId: TENANT, externalUserId: 'U0NOPROF' }),
      ).not.toBeNull();
    } finally {
      port.profileFails = false;
    }
  });

  it('writes as the person agent of a linked person', async () => {
    const identity = await app.store.identities.upsert({
      surface: 'slack',
      tenantId: TENANT,
      externalUserId: 'U0ALICE',
    });
    const alice = (await app.store.people.get('alice'))!;
    await app.store.identities.link(identity.id, alice.id, new Date());
    await app.inbound.receive(port, msg('@reviewer from alice', { authorId: 'U0ALICE' }));
    const item = (await app.messaging.checkInbox(reviewer, ws, 50)).items.find(
      (i) => i.message.body === '@reviewer from alice',
    )!;
    expect(item.sender).toMatchObject({ kind: 'person', name: 'alice' });
    expect(port.prompts.some((p) => p.user === 'U0ALICE')).toBe(false);
  });

  it('sends a thread reply that names nobody to the agents of that thread, and ignores threads no agent took part in', async () => {
    const start = msg('@reviewer first question');
    await app.inbound.receive(port, start);
    const reply = await app.inbound.receive(
      port,
      msg('and a follow-up', { thread: start.messageId, addressed: false }),
    );
    expect(reply).toMatchObject({ kind: 'handled' });
    expect(await bodies(reviewer)).toContain('and a follow-up');
    expect(await bodies(tester)).not.toContain('and a follow-up');
    expect(await app.inbound.receive(port, msg('people talking', { thread: 'm-unknown', addressed: false }))).toEqual({
      kind: 'ignored',
    });
  });

  it('asks for an agent when a mention names nobody, unless the channel has a default', async () => {
    expect(await app.inbound.receive(port, msg('hello there', { channelId: 'C2' }))).toMatchObject({
      kind: 'name-an-agent',
    });
    await app.store.defaultAgents.set(
      { surface: 'slack', tenantId: TENANT, scope: 'channel', scopeId: 'C2' },
      tester.id,
      'U1',
    );
    expect(await app.inbound.receive(port, msg('hello default', { channelId: 'C2' }))).toMatchObject({
      kind: 'handled',
    });
    expect(await bodies(tester)).toContain('hello default');
  });

  it('asks a DM to choose its agent first, then delivers to the chosen one', async () => {
    const dm = { place: 'dm' as const, channelId: 'D1', authorId: 'U0DM' };
    expect(await app.inbound.receive(port, msg('hi', dm))).toMatchObject({ kind: 'choose-agent' });
    await app.store.defaultAgents.set(
      { surface: 'slack', tenantId: TENANT, scope: 'user', scopeId: 'U0DM' },
      reviewer.id,
      'U0DM',
    );
    await app.inbound.receive(port, msg('hi again', dm));
    const item = (await app.messaging.checkInbox(reviewer, ws, 50)).items.find((i) => i.message.body === 'hi again')!;
    expect(item.conversation).toMatchObject({ title: 'Chatland DM with Person U0DM', permalink: null });
  });

  it("names unknown agents in the surface's quoting, and says who did not get it", async () => {
    const outcome = await app.inbound.receive(port, msg('@nobody @reviewer hi'));
    expect(outcome).toMatchObject({ kind: 'handled', notices: [expect.stringContaining('«nobody»')] });
    expect(await bodies(reviewer)).toContain('@nobody @reviewer hi');
  });

  it('says the tenant is not connected, but only to a message written to the app', async () => {
    expect(await app.inbound.receive(port, msg('@reviewer hi', { tenantId: 'T0OTHER' }))).toEqual({
      kind: 'not-connected',
    });
    expect(await app.inbound.receive(port, msg('hi', { tenantId: 'T0OTHER', thread: 'm1', addressed: false }))).toEqual(
      { kind: 'ignored' },
    );
  });

  it('refuses a guest where linking is required, with a link prompt and a sentence saying how to link', async () => {
    await app.store.workspaces.update(ws.id, { requireLinking: true });
    ws = (await app.store.workspaces.get(ws.id))!;
    try {
      const refused = app.inbound.receive(port, msg('@reviewer let me in', { authorId: 'U0STRICT' }));
      await expect(refused).rejects.toMatchObject({
        code: 'NOT_PERMITTED',
        details: { reason: 'linking_required' },
        message: expect.stringContaining('linked their Chatland account'),
      });
      await expect(refused).rejects.toMatchObject({
        message: expect.stringContaining('I sent you a link; link, then write again.'),
      });
      expect(port.prompts).toContainEqual({ user: 'U0STRICT', reason: 'required' });
      expect(await bodies(reviewer)).not.toContain('@reviewer let me in');
      const again = await app.inbound.linkingRefusal(
        port,
        { workspace: ws, directory: await app.agents.directory(ws) },
        TENANT,
        'U0STRICT',
      );
      expect(again).toContain('ask me for a link');
    } finally {
      await app.store.workspaces.update(ws.id, { requireLinking: false });
      ws = (await app.store.workspaces.get(ws.id))!;
    }
  });

  it("ignores without a word a guest's thread reply not written to the app where linking is required, on every surface", async () => {
    const start = msg('@reviewer a thread the reviewer is in');
    await app.inbound.receive(port, start);
    await app.store.workspaces.update(ws.id, { requireLinking: true });
    ws = (await app.store.workspaces.get(ws.id))!;
    try {
      const reply = app.inbound.receive(
        port,
        msg('a reply among people', { thread: start.messageId, addressed: false, authorId: 'U0QUIET' }),
      );
      await expect(reply).resolves.toEqual({ kind: 'ignored' });
      expect(port.prompts.some((p) => p.user === 'U0QUIET')).toBe(false);
      expect(await bodies(reviewer)).not.toContain('a reply among people');
    } finally {
      await app.store.workspaces.update(ws.id, { requireLinking: false });
      ws = (await app.store.workspaces.get(ws.id))!;
    }
  });
});
