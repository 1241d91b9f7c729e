// Audiences of web conversations and DMs, and the rule that what an agent took
// in from a restricted channel is never posted where someone outside it reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../src/app.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import type { Agent } from '../../../src/core/entities.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { testApp } from '../../support/world.ts';
import { pgliteDb } from '../../support/db.ts';

describe('audiences of web conversations', () => {
  let database: Database;
  let app: App;
  let builder: Agent;
  const viewers: Record<string, Viewer> = {};
  const inbox = () => app.messaging.checkInbox(builder, viewers.alice.workspace, 50).then((r) => r.items);

  beforeAll(async () => {
    database = await pgliteDb.open();
    app = await testApp(database);
    await app.orgs.init({ org: 'Web', admin: 'alice' });
    for (const handle of ['bob', 'carol']) await app.orgs.addPerson(SYSTEM, { handle, org: 'web' });
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Lab', org: 'web' });
    ({ agent: builder } = await app.agents.add(SYSTEM, { name: 'builder', owner: 'alice' }));
    await app.agents.join(SYSTEM, { agent: 'alice/builder', workspace: ws.slug });
    const { chat } = chatOf(app);
    for (const handle of ['alice', 'bob', 'carol'])
      viewers[handle] = await chat.viewer((await app.store.people.get(handle))!.id, ws.slug);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('is everyone who reaches the workspace in an open channel, and the members of a restricted one', async () => {
    const { chat } = chatOf(app);
    const open = await chat.createChannel(viewers.alice, { name: 'lobby' });
    await chat.post(viewers.alice, open.conversationId, '@builder hello everyone');
    expect((await inbox()).at(-1)?.audience).toEqual({ level: 'viewer', members: 3, unlinked: 0 });

    const secret = await chat.createChannel(viewers.alice, { name: 'secret', restricted: true });
    await chat.addMember(viewers.alice, secret.conversationId, 'bob');
    await chat.post(viewers.bob, secret.conversationId, '@builder the launch date is May 5');
    expect((await inbox()).at(-1)?.audience).toEqual({ level: 'viewer', members: 2, unlinked: 0 });
  });

  it('is the people behind a DM: the person writing, and the owner of the agent', async () => {
    const { chat } = chatOf(app);
    const dm = await chat.openDm(viewers.carol, builder.id);
    await chat.post(viewers.carol, dm.id, 'just between us');
    expect((await inbox()).at(-1)?.audience).toEqual({ level: 'viewer', members: 2, unlinked: 0 });
  });

  it('keeps what an agent read in a restricted channel out of conversations with people outside it', async () => {
    const { chat } = chatOf(app);
    const secret = (await app.store.chat.channelByName(viewers.alice.workspace.id, 'secret'))!;
    await chat.post(viewers.bob, secret.conversationId, '@builder remember: codename Falcon');
    await inbox();
    const ws = viewers.alice.workspace;
    // Back into the channel itself, and to people who are in it: fine.
    await expect(
      app.messaging.send({
        workspace: ws,
        sender: builder,
        conversationId: secret.conversationId,
        body: 'Noted, Falcon.',
      }),
    ).resolves.toMatchObject({ message: expect.anything() });
    await expect(
      app.messaging.send({ workspace: ws, sender: builder, to: ['bob'], body: 'About Falcon…' }),
    ).resolves.toMatchObject({ message: expect.anything() });
    // To Carol, who is not in #secret: refused, saying why and what to do instead.
    await expect(
      app.messaging.send({ workspace: ws, sender: builder, to: ['carol'], body: 'Falcon launches May 5.' }),
    ).rejects.toMatchObject({
      code: 'NOT_PERMITTED',
      message: expect.stringMatching(/#secret.*wider.*in a DM instead/),
    });
    const lobby = (await app.store.chat.channelByName(ws.id, 'lobby'))!;
    await expect(
      app.messaging.send({ workspace: ws, sender: builder, conversationId: lobby.conversationId, body: 'Falcon!' }),
    ).rejects.toMatchObject({ code: 'NOT_PERMITTED' });
    // People speak for themselves: only agents are held to what they read.
    await chat.join(viewers.bob, lobby.conversationId);
    await expect(chat.post(viewers.bob, lobby.conversationId, 'Falcon is coming')).resolves.toBeDefined();
  });

  it('counts what a search returned from a restricted channel like what the inbox did', async () => {
    const ws = viewers.alice.workspace;
    const { agent: scout } = await app.agents.add(SYSTEM, { name: 'scout', owner: 'alice' });
    await app.agents.join(SYSTEM, { agent: 'alice/scout', workspace: ws.slug, monitor: true });
    const lobby = (await app.store.chat.channelByName(ws.id, 'lobby'))!;
    const { chat } = chatOf(app);
    await chat.post(viewers.alice, lobby.conversationId, '@scout you may write here');
    // Nothing read yet: it may post in the lobby.
    await expect(
      app.messaging.send({ workspace: ws, sender: scout, conversationId: lobby.conversationId, body: 'hello' }),
    ).resolves.toMatchObject({ message: expect.anything() });
    const hits = await app.messaging.search(scout, ws, { text: 'codename', limit: 10 });
    expect(hits.map((h) => h.message.body)).toContain('@builder remember: codename Falcon');
    await expect(
      app.messaging.send({ workspace: ws, sender: scout, conversationId: lobby.conversationId, body: 'It is Falcon.' }),
    ).rejects.toMatchObject({ code: 'NOT_PERMITTED', message: expect.stringMatching(/#secret/) });
  });

  it("holds an approval request's details to the same rule: asked in a wider conversation, or of approvers outside it", async () => {
    const { chat } = chatOf(app);
    const ws = viewers.alice.workspace;
    const secret = (await app.store.chat.channelByName(ws.id, 'secret'))!;
    await chat.post(viewers.bob, secret.conversationId, '@builder the Falcon budget is 2M');
    await inbox();
    const lobby = (await app.store.chat.channelByName(ws.id, 'lobby'))!;
    await expect(
      app.approvals.request(builder, ws, {
        title: 'Spend',
        details: 'Falcon: 2M',
        conversationId: lobby.conversationId,
      }),
    ).rejects.toMatchObject({ code: 'NOT_PERMITTED', message: expect.stringMatching(/#secret/) });
    await expect(
      app.approvals.request(builder, ws, { title: 'Spend', details: 'Falcon: 2M', approvers: ['carol'] }),
    ).rejects.toMatchObject({ code: 'NOT_PERMITTED' });
    // In the channel it came from, of an approver in it: asked.
    await expect(
      app.approvals.request(builder, ws, {
        title: 'Spend',
        details: 'Falcon: 2M',
        conversationId: secret.conversationId,
        approvers: ['bob'],
      }),
    ).resolves.toMatchObject({ status: 'pending' });
  });
});
