// A message that brings agents into a conversation is held to the audience rule twice over: the conversation's
// audience, and the people behind the agents it brings in (who read what was said there from now on). Both come
// from one look at what the sender read lately.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../../src/app.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { testApp } from '../../support/world.ts';
import { pgliteDb } from '../../support/db.ts';

describe('a message naming agents who join the conversation', () => {
  let database: Database;
  let app: App;
  let ws: Workspace;
  let builder: Agent;
  const viewers: Record<string, Viewer> = {};

  beforeAll(async () => {
    database = await pgliteDb.open();
    app = await testApp(database);
    await app.orgs.init({ org: 'Join', admin: 'alice' });
    for (const handle of ['bob', 'carol']) await app.orgs.addPerson(SYSTEM, { handle, org: 'join' });
    ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Lab', org: 'join' });
    ({ agent: builder } = await app.agents.add(SYSTEM, { name: 'builder', owner: 'alice' }));
    await app.agents.join(SYSTEM, { agent: 'alice/builder', workspace: ws.slug });
    for (const owner of ['bob', 'carol']) {
      await app.agents.add(SYSTEM, { name: `${owner}-helper`, owner });
      await app.agents.join(SYSTEM, { agent: `${owner}/${owner}-helper`, workspace: ws.slug });
    }
    const { chat } = chatOf(app);
    for (const handle of ['alice', 'bob', 'carol'])
      viewers[handle] = await chat.viewer((await app.store.people.get(handle))!.id, ws.slug);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('checks the conversation and who joins it against one read of what the sender read, and refuses one whose owner is outside', async () => {
    const { chat } = chatOf(app);
    const secret = await chat.createChannel(viewers.alice, { name: 'secret', restricted: true });
    await chat.addMember(viewers.alice, secret.conversationId, 'bob');
    await chat.post(viewers.bob, secret.conversationId, '@builder the codename is Falcon');
    await app.messaging.checkInbox(builder, ws, 50);
    const reads = vi.spyOn(app.store.audiences, 'readsSince');
    try {
      // Bob's agent joins #secret, whose people Bob is one of: sent, with one look at the builder's reads.
      const sent = await app.messaging.send({
        workspace: ws,
        sender: builder,
        conversationId: secret.conversationId,
        to: ['bob-helper'],
        body: 'Falcon, helper.',
      });
      expect(sent.recipients).toMatchObject([{ to: 'bob-helper', status: 'delivered' }]);
      expect(reads).toHaveBeenCalledTimes(1);
      // Carol's agent would carry #secret to Carol, who is not in it: refused, saying why.
      reads.mockClear();
      await expect(
        app.messaging.send({
          workspace: ws,
          sender: builder,
          conversationId: secret.conversationId,
          to: ['carol-helper'],
          body: 'Falcon, helper.',
        }),
      ).rejects.toMatchObject({
        code: 'NOT_PERMITTED',
        message: expect.stringMatching(/#secret.*wider.*in a DM instead/),
      });
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });
});
