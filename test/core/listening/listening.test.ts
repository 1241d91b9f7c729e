// Listening agents on real PostgreSQL: an owner lets an agent listen to a web
// channel; it hears every message there flagged overheard (counted apart, not
// addressed, no chain), speaks there only once mentioned, and a restricted
// channel lets in only agents whose owner reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { App } from '../../../src/app.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { listeningCommands } from '../../../src/cli/listening-commands.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { ChatService } from '../../../src/surfaces/web/pages/chat-service.ts';
import { connectInProcess, makeWorld, testApp, textOf, type World } from '../../support/world.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const database = postgresDb() ?? pgliteDb;

describe(`listening agents (${database.kind})`, () => {
  let db: Database;
  let app: App;
  let w: World;
  let chat: ChatService;

  beforeAll(async () => {
    db = await database.open();
    app = await testApp(db);
    w = await makeWorld(app);
    chat = chatOf(app).chat;
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  const alice = async () => chat.viewer((await app.store.people.get(w.alice))!.id, w.ws.slug);

  it('is off by default: a channel message reaches no agent until an owner turns listening on', async () => {
    const v = await alice();
    const ch = await chat.createChannel(v, { name: 'support' });
    await chat.post(v, ch.conversationId, 'the export button is broken');
    expect((await app.messaging.checkInbox(w.reviewer.agent, w.ws, 10)).items).toEqual([]);

    const out = await listeningCommands['channel listen'](app, {
      workspace: w.ws.slug,
      channel: '#support',
      agent: w.reviewer.name,
    });
    expect(out.text).toContain(`${w.reviewer.name} now listens to #support`);
    const again = await listeningCommands['channel listen'](app, {
      workspace: w.ws.slug,
      channel: 'support',
      agent: w.reviewer.name,
    });
    expect(again.data.added).toBe(false);
    const listed = await listeningCommands['channel listeners'](app, { workspace: w.ws.slug });
    expect(listed.data.listeners).toEqual([
      expect.objectContaining({ channel: '#support', agent: w.reviewer.name, surface: 'web' }),
    ]);
  });

  it('delivers every message of the channel flagged overheard, counted apart, after what was addressed', async () => {
    const v = await alice();
    const ch = (await app.store.chat.channelByName(w.ws.id, 'support'))!;
    await chat.post(v, ch.conversationId, 'search is slow since Monday');
    await chat.post(v, ch.conversationId, `@${w.builder.name} can you look at the logs?`);
    const { client, call, close } = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    try {
      const res = await client.readResource({ uri: 'switchboard://inbox' });
      expect(JSON.parse((res.contents[0] as { text: string }).text)).toMatchObject({ unread: 0, overheard: 2 });
      await app.messaging.send({
        workspace: w.ws,
        sender: w.builder.agent,
        to: [w.reviewer.name],
        body: 'a direct question',
      });
      const got = await call('check_inbox', { limit: 10 });
      const s = got.structuredContent as { messages: Array<{ body: string; overheard: boolean }>; overheard: number };
      expect(s.messages.map((m) => [m.body, m.overheard])).toEqual([
        ['a direct question', false],
        ['search is slow since Monday', true],
        [`@${w.builder.name} can you look at the logs?`, true],
      ]);
      expect(s.overheard).toBe(2);
      expect(textOf(got)).toContain('(overheard)');
    } finally {
      await close();
    }
  });

  it('never hears its own posts nor DMs, and a message addressed to it is not also overheard', async () => {
    const v = await alice();
    const ch = (await app.store.chat.channelByName(w.ws.id, 'support'))!;
    await chat.post(v, ch.conversationId, `@${w.reviewer.name} please triage this`);
    await app.messaging.send({ workspace: w.ws, sender: w.builder.agent, to: [w.alice], body: 'a DM to alice' });
    const items = (await app.messaging.checkInbox(w.reviewer.agent, w.ws, 10)).items;
    expect(items.map((i) => [i.message.body, i.overheard])).toEqual([
      [`@${w.reviewer.name} please triage this`, false],
    ]);
  });

  it('refuses a post into a conversation it only overheard, with what to do instead; a mention in that thread lets it answer', async () => {
    const v = await alice();
    // A fresh channel: a mention in a web channel itself makes the agent part of the whole channel.
    const ch = await chat.createChannel(v, { name: 'ops' });
    await app.listening.listen(SYSTEM, w.ws.slug, 'ops', w.reviewer.name);
    const posted = await chat.post(v, ch.conversationId, 'anyone know why login fails?');
    const [item] = (await app.messaging.checkInbox(w.reviewer.agent, w.ws, 10)).items;
    expect(item.overheard).toBe(true);
    const { call, close } = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    try {
      for (const args of [
        { conversation: item.conversation.id, body: 'I can help' },
        { reply_to: item.message.id, body: 'I can help', to: [w.alice] },
      ]) {
        const r = await call('send_message', args);
        expect(r.isError).toBe(true);
        expect(textOf(r)).toMatch(/only overheard .* wait to be mentioned there, or write to the person with `to`/);
      }
      // Mentioned in a thread under the message: it may answer in that thread.
      const thread = await chat.openThread(v, posted.message!.id);
      await chat.post(v, thread.id, `@${w.reviewer.name} yes please`);
      const [mention] = (await app.messaging.checkInbox(w.reviewer.agent, w.ws, 10)).items;
      expect(mention).toMatchObject({ overheard: false, conversation: { id: thread.id } });
      const answer = await call('send_message', { conversation: thread.id, body: 'It is the expired certificate.' });
      expect(answer.isError).toBeFalsy();
    } finally {
      await close();
    }
  });

  it('opens no chain: its next message to another agent starts at hop 0', async () => {
    const v = await alice();
    const { agent: scribe } = await app.agents.add(SYSTEM, { name: 'scribe', owner: w.alice, displayName: 'Scribe' });
    await app.agents.join(SYSTEM, { agent: `${w.alice}/scribe`, workspace: w.ws.slug });
    await app.listening.listen(SYSTEM, w.ws.slug, 'support', `${w.alice}/scribe`);
    const ch = (await app.store.chat.channelByName(w.ws.id, 'support'))!;
    const sent = await chat.post(v, ch.conversationId, 'overheard before a new request');
    expect((await app.messaging.checkInbox(scribe, w.ws, 10)).items.map((i) => i.overheard)).toEqual([true]);
    const r = await app.messaging.send({
      workspace: w.ws,
      sender: scribe,
      to: [w.builder.name],
      body: 'unrelated question',
    });
    expect(r.message!.hop).toBe(0);
    expect(r.message!.chainId).not.toBe(sent.message!.id);
    expect(r.message!.replyTo).toBeNull();
  });

  it('a restricted channel lets in only agents whose owner is in it, and only owners choose listeners', async () => {
    const v = await alice();
    const secret = await chat.createChannel(v, { name: 'leadership', restricted: true });
    await expect(app.listening.listen(SYSTEM, w.ws.slug, 'leadership', w.reviewer.name)).rejects.toThrow(
      /restricted and .* owner is not in it/,
    );
    const bobPerson = (await app.store.people.get(w.bob))!;
    await expect(
      app.listening.listen({ kind: 'person', personId: bobPerson.id }, w.ws.slug, 'support', w.builder.name),
    ).rejects.toThrow(/Only an owner of .* ask one of its owners/);
    await app.listening.listen(SYSTEM, w.ws.slug, 'leadership', w.builder.name);
    await app.messaging.checkInbox(w.builder.agent, w.ws, 50);
    await chat.post(v, secret.conversationId, 'budget numbers');
    expect(
      (await app.messaging.checkInbox(w.builder.agent, w.ws, 10)).items.map((i) => [i.message.body, i.overheard]),
    ).toEqual([['budget numbers', true]]);
  });

  it('creates #general on first use in a workspace made at the command line, as `bridge add` does; other web channels must exist', async () => {
    const admin = `carol-${w.suffix}`;
    const { org } = await app.orgs.init({ org: `Fresh ${w.suffix}`, admin });
    const made = await runCommand(app, 'workspace add', { name: `Fresh team ${w.suffix}`, org: org.slug });
    expect(made.error).toBeUndefined();
    const slug = (made.output!.data.workspace as { slug: string }).slug;
    const ws = (await app.store.workspaces.get(slug))!;
    await app.agents.add(SYSTEM, { name: 'triage', owner: admin });
    expect((await runCommand(app, 'agent join', { agent: `${admin}/triage`, workspace: slug })).ok).toBe(true);
    // Nobody has opened the web chat: the workspace has no #general yet.
    expect(await app.store.chat.channelByName(ws.id, 'general')).toBeNull();

    const out = await runCommand(app, 'channel listen', {
      workspace: slug,
      channel: 'general',
      agent: `${admin}/triage`,
    });
    expect(out.error).toBeUndefined();
    expect(out.output!.text).toBe(
      `${admin}/triage now listens to #general: it gets every message there, flagged overheard, and answers only when mentioned.`,
    );
    const general = (await app.store.chat.channelByName(ws.id, 'general'))!;
    expect(general).toMatchObject({ name: 'general', restricted: false });
    // The web chat opens that same channel, and the agent hears what is written there.
    const v = await chat.viewer((await app.store.people.get(admin))!.id, slug);
    expect((await chat.access.ensureGeneral(ws)).conversationId).toBe(general.conversationId);
    await chat.post(v, general.conversationId, 'hello from the web chat');
    const triage = (await app.store.agents.byQualifiedName(admin, 'triage'))!;
    expect((await app.messaging.checkInbox(triage, ws, 10)).items.map((i) => [i.message.body, i.overheard])).toEqual([
      ['hello from the web chat', true],
    ]);

    const other = await runCommand(app, 'channel listen', {
      workspace: slug,
      channel: 'support',
      agent: `${admin}/triage`,
    });
    expect(other.error).toMatchObject({ code: 'NOT_FOUND' });
    expect(other.error!.message).toMatch(
      new RegExp(
        `^The channel #support in ${slug} was not found\\. Create it in the web chat first, or name another channel\\.`,
      ),
    );
    expect(await app.store.chat.channelByName(ws.id, 'support')).toBeNull();
  });

  it('stops when unlistened, and a channel argument it cannot name is refused with how to name one', async () => {
    const r = await listeningCommands['channel listen'](app, {
      workspace: w.ws.slug,
      channel: 'support',
      agent: w.reviewer.name,
      stop: true,
    });
    expect(r.text).toBe(`${w.reviewer.name} no longer listens to #support.`);
    await app.messaging.checkInbox(w.reviewer.agent, w.ws, 50);
    const v = await alice();
    const ch = (await app.store.chat.channelByName(w.ws.id, 'support'))!;
    await chat.post(v, ch.conversationId, 'after unlisten');
    expect((await app.messaging.checkInbox(w.reviewer.agent, w.ws, 10)).items).toEqual([]);
    await expect(
      listeningCommands['channel listen'](app, { workspace: w.ws.slug, channel: 'slack:D123', agent: w.reviewer.name }),
    ).rejects.toThrow(/is not a channel Switchboard knows how to name\. Name the channel as/);
    await expect(
      listeningCommands['channel listen'](app, {
        workspace: w.ws.slug,
        channel: 'support',
        agent: `${w.alice}/${w.alice}`,
      }),
    ).rejects.toThrow(/is a person/);
  });
});
