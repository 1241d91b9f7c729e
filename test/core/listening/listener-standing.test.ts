// A listener is asked again, at every message, whether it may still hear the
// channel: an agent retired, an owner taken out of the organization, the
// receive permission withdrawn, or an owner who left a restricted channel
// stops its deliveries at once, and listings stop naming it. An agent that left
// the workspace is not a listener any more, even once joined again. Real
// PostgreSQL when TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { App } from '../../../src/app.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent } from '../../../src/core/entities.ts';
import { makeWorld, testApp, type World } from '../../support/world.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const database = postgresDb() ?? pgliteDb;

describe(`listeners who may no longer hear a channel (${database.kind})`, () => {
  let db: Database;
  let app: App;

  beforeAll(async () => {
    db = await database.open();
    app = await testApp(db);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  const viewer = (w: World, handle: string) =>
    app.store.people.get(handle).then((p) => chatOf(app).chat.viewer(p!.id, w.ws.slug));
  const overheard = async (w: World, agent: Agent) =>
    (await app.store.messages.unreadCounts(agent.id, w.ws.id)).overheard;
  const listed = async (w: World, channel: string) =>
    (await app.listening.listeners(SYSTEM, w.ws.slug, channel)).map((l) => l.agent);
  const listedEverywhere = async (w: World) => (await app.listening.listeners(SYSTEM, w.ws.slug)).map((l) => l.agent);

  /** alice opens `name` (restricted or not, with bob in it), and bob's reviewer listens; a first message reaches it. */
  async function listening(w: World, name: string, restricted = false) {
    const alice = await viewer(w, w.alice);
    const ch = await chatOf(app).chat.createChannel(alice, { name, restricted });
    if (restricted) await chatOf(app).chat.addMember(alice, ch.conversationId, w.bob);
    await app.listening.listen(SYSTEM, w.ws.slug, name, w.reviewer.name);
    await chatOf(app).chat.post(alice, ch.conversationId, 'heard while allowed');
    expect(await overheard(w, w.reviewer.agent)).toBe(1);
    expect(await listed(w, name)).toEqual([w.reviewer.name]);
    return { alice, channelId: ch.conversationId };
  }

  /** After the change: a new message reaches nobody, and neither listing names the agent. */
  async function noLongerHears(
    w: World,
    name: string,
    ch: { alice: Awaited<ReturnType<typeof viewer>>; channelId: string },
  ) {
    await chatOf(app).chat.post(ch.alice, ch.channelId, 'written after the change');
    expect(await overheard(w, w.reviewer.agent)).toBe(1);
    expect(await listed(w, name)).toEqual([]);
    expect(await listedEverywhere(w)).toEqual([]);
    expect(await app.listening.ofWebChannel(w.ws, ch.channelId)).toEqual([]);
  }

  /**
   * Joined again after it left the workspace: it hears nothing, is listed nowhere, and listening anew counts as a
   * start (the one that tells the channel), not as a row it kept.
   */
  async function rejoinedHearsNothing(
    w: World,
    name: string,
    ch: { alice: Awaited<ReturnType<typeof viewer>>; channelId: string },
  ) {
    await app.agents.join(SYSTEM, { agent: w.reviewer.name, workspace: w.ws.slug });
    await noLongerHears(w, name, ch);
    expect((await app.listening.listen(SYSTEM, w.ws.slug, name, w.reviewer.name)).added).toBe(true);
    await chatOf(app).chat.post(ch.alice, ch.channelId, 'written once it listens again');
    expect(await overheard(w, w.reviewer.agent)).toBe(2);
  }

  it('forgets what a removed agent listened to: brought back and joined again, it hears nothing until it listens again', async () => {
    const w = await makeWorld(app);
    const ch = await listening(w, 'support');
    await app.agents.remove(SYSTEM, w.reviewer.name);
    await app.agents.rotateToken(SYSTEM, w.reviewer.name);
    await rejoinedHearsNothing(w, 'support', ch);
  });

  it('forgets what an agent listened to once its owner is taken out of the organization, though the owner comes back', async () => {
    const w = await makeWorld(app);
    const ch = await listening(w, 'support');
    await app.orgs.removePerson(SYSTEM, w.org, w.bob);
    await app.orgs.addPerson(SYSTEM, { handle: w.bob, org: w.org });
    await rejoinedHearsNothing(w, 'support', ch);
  });

  it('stops hearing once its agent is removed', async () => {
    const w = await makeWorld(app);
    const ch = await listening(w, 'support');
    await app.agents.remove(SYSTEM, w.reviewer.name);
    await noLongerHears(w, 'support', ch);
  });

  it('stops hearing once its owner is taken out of the organization', async () => {
    const w = await makeWorld(app);
    const ch = await listening(w, 'support');
    await app.orgs.removePerson(SYSTEM, w.org, w.bob);
    await noLongerHears(w, 'support', ch);
  });

  it('stops hearing once its receive permission is withdrawn', async () => {
    const w = await makeWorld(app);
    const ch = await listening(w, 'support');
    await app.agents.join(SYSTEM, { agent: w.reviewer.name, workspace: w.ws.slug, receive: false });
    await noLongerHears(w, 'support', ch);
  });

  it('stops hearing a restricted channel its owner left, and hears it again once the owner is back', async () => {
    const w = await makeWorld(app);
    const ch = await listening(w, 'leadership', true);
    await chatOf(app).chat.leave(await viewer(w, w.bob), ch.channelId);
    await noLongerHears(w, 'leadership', ch);
    await chatOf(app).chat.addMember(ch.alice, ch.channelId, w.bob);
    await chatOf(app).chat.post(ch.alice, ch.channelId, 'written once bob is back');
    expect(await overheard(w, w.reviewer.agent)).toBe(2);
    expect(await listed(w, 'leadership')).toEqual([w.reviewer.name]);
  });
});
