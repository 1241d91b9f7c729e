// The audience of Slack conversations, end to end: who is in a private channel
// comes from conversations.members and follows member_joined_channel and
// member_left_channel; one unlinked member puts it at guest level; agents see
// it on every inbox item, and what they read and post is capped by it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { inboxItemOut } from '../../../src/mcp/render.ts';
import { connectInProcess, textOf } from '../../support/world.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import {
  eventCallback,
  memberJoinedChannel,
  memberLeftChannel,
  messageIm,
} from '../../support/slack/signed-request.ts';
import { startLinkingWorld, type LinkingWorld } from '../../support/slack/linking-world.ts';

const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const GUEST = 'U0GUEST01';
const NEWCOMER = 'U0NEWCOM1';
const TEAM = SLACK_DEFAULTS.teamId;

describe('audiences of Slack conversations', () => {
  let w: LinkingWorld;
  let n = 0;
  const seen: InboxItem[] = [];
  /** Alice (or someone) mentions the reviewer in a channel; resolves with the inbox item. */
  const ask = async (channel: string, user = ALICE, text = 'what is in SPEC-1?') => {
    const body = `@reviewer ${text} (${++n})`;
    await w.mention(user, body, channel);
    return vi.waitFor(
      async () => {
        seen.push(...(await w.h.server.app.messaging.checkInbox(w.h.reviewer, w.h.workspace, 50)).items);
        const found = seen.find((i) => i.message.body === body);
        if (!found) throw new Error('not delivered yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
  };
  const cachedMembers = (channel: string) =>
    w.h.server.app.store.audiences.channelMembers('slack', TEAM, channel).then((c) => c?.userIds ?? []);

  beforeAll(async () => {
    w = await startLinkingWorld({
      [ALICE]: 'Alice Adams',
      [BOB]: 'Bob Brown',
      [GUEST]: 'Gus Guest',
      [NEWCOMER]: 'Nia New',
    });
    const { app } = w.h.server;
    for (const [user, handle] of [
      [ALICE, 'alice'],
      [BOB, 'bob'],
    ] as const) {
      const identity = await app.store.identities.upsert({ surface: 'slack', tenantId: TEAM, externalUserId: user });
      await app.store.identities.link(identity.id, (await app.store.people.get(handle))!.id, new Date());
    }
    w.standin.setChannelMembers('C0MIXED', [SLACK_DEFAULTS.botUserId, ALICE, BOB, GUEST]);
    w.standin.setChannelMembers('C0TEAM', [SLACK_DEFAULTS.botUserId, ALICE, BOB]);
    // Private: a public channel is read by the whole team (public-channel-audience.test.ts).
    w.standin.setChannel('C0MIXED', { name: 'mixed', is_private: true });
    w.standin.setChannel('C0TEAM', { name: 'team', is_private: true });
    await app.orgs.setSeat(SYSTEM, 'acme', 'alice', true);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('puts a channel with one unlinked member at guest level, and a member leaving raises it', async () => {
    expect(inboxItemOut(await ask('C0MIXED')).audience).toEqual({ level: 'guest', members: 3, unlinked: 1 });
    expect(await cachedMembers('C0MIXED')).toEqual(expect.arrayContaining([ALICE, BOB, GUEST]));

    await w.h.post(eventCallback(memberLeftChannel({ user: GUEST, channel: 'C0MIXED' })));
    await vi.waitFor(async () => expect(await cachedMembers('C0MIXED')).not.toContain(GUEST), {
      timeout: 20_000,
      interval: 50,
    });
    // Bob is a member of the organization (a viewer here); Alice is an admin (an owner).
    expect(inboxItemOut(await ask('C0MIXED')).audience).toEqual({ level: 'viewer', members: 2, unlinked: 0 });

    await w.h.post(eventCallback(memberJoinedChannel({ user: NEWCOMER, channel: 'C0MIXED', inviter: ALICE })));
    await vi.waitFor(async () => expect(await cachedMembers('C0MIXED')).toContain(NEWCOMER), {
      timeout: 20_000,
      interval: 50,
    });
    expect(inboxItemOut(await ask('C0MIXED')).audience).toEqual({ level: 'guest', members: 3, unlinked: 1 });
    // Membership was read from Slack once; the events kept it current since.
    expect(w.standin.callsTo('conversations.members').filter((c) => c.args.channel === 'C0MIXED')).toHaveLength(1);
  });

  it("makes a DM's audience the person in it", async () => {
    await w.h.post(eventCallback(messageIm({ user: ALICE, text: '@reviewer a private question' })));
    const item = await vi.waitFor(
      async () => {
        seen.push(...(await w.h.server.app.messaging.checkInbox(w.h.reviewer, w.h.workspace, 50)).items);
        const found = seen.find((i) => i.message.body === '@reviewer a private question');
        if (!found) throw new Error('not delivered yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(inboxItemOut(item).audience).toEqual({ level: 'owner', members: 1, unlinked: 0 });
  });

  it('caps what an agent reads for a conversation by its audience, and refuses to post a document it read into a wider one', async () => {
    const { app } = w.h.server;
    const access = (await app.documents.access(w.h.workspace, (await app.store.people.get('alice'))!.id, null))!;
    await app.documents.createCollection(w.h.workspace, access, { type: 'specs' });
    const spec = await app.documents.create(w.h.workspace, access, {
      collection: 'specs',
      title: 'Pricing',
      content: 'The secret price is 42.',
    });
    const guestLevel = await ask('C0MIXED');
    const teamLevel = await ask('C0TEAM');
    expect(guestLevel.audience?.level).toBe('guest');
    expect(teamLevel.audience?.level).toBe('viewer');

    const mcp = await connectInProcess(app, w.h.reviewer, 'eng');
    try {
      const send = (conversation: string, body: string) => mcp.call('send_message', { conversation, body });
      expect((await send(guestLevel.conversation.id, 'Hello, nothing private here.')).isError).toBeFalsy();

      const refusedRead = await mcp.call('get_document', {
        document: spec.identifier,
        conversation: guestLevel.conversation.id,
      });
      expect(refusedRead.isError).toBe(true);
      expect(textOf(refusedRead)).toContain('1 of them not linked');
      expect(textOf(refusedRead)).toContain('in a DM instead');
      expect(textOf(refusedRead)).not.toContain('secret price');

      const read = await mcp.call('get_document', {
        document: spec.identifier,
        conversation: teamLevel.conversation.id,
      });
      expect(textOf(read)).toContain('The secret price is 42.');

      const leak = await send(guestLevel.conversation.id, 'The price is 42.');
      expect(leak.isError).toBe(true);
      expect(textOf(leak)).toContain(`you recently read ${spec.identifier}`);
      expect(textOf(leak)).toContain('in a DM instead');
      expect((await send(teamLevel.conversation.id, 'The price is 42.')).isError).toBeFalsy();
      await vi.waitFor(() => expect(w.standin.messages('C0TEAM').map((m) => m.text)).toContain('The price is 42.'), {
        timeout: 20_000,
        interval: 50,
      });
      expect(w.standin.messages('C0MIXED').map((m) => m.text)).not.toContain('The price is 42.');
    } finally {
      await mcp.close();
    }
  });

  it('changes nothing for a conversation on behalf of a guest, or of someone who could not change it themselves', async () => {
    const { app } = w.h.server;
    const fromGuest = await ask('C0MIXED', NEWCOMER, 'please archive SPEC-1');
    const fromBob = await ask('C0TEAM', BOB, 'please archive SPEC-1');
    const fromAlice = await ask('C0TEAM', ALICE, 'please retitle SPEC-1');
    expect(inboxItemOut(fromGuest).asker).toEqual({ handle: null, linked: false });
    const mcp = await connectInProcess(app, w.h.reviewer, 'eng');
    try {
      const current = (await mcp.call('get_document', { document: 'SPEC-1' })).structuredContent as {
        updated_at: string;
      };
      const update = (conversation: string, title: string) =>
        mcp.call('update_document', { document: 'SPEC-1', updated_at: current.updated_at, title, conversation });
      const guest = await update(fromGuest.conversation.id, 'Archived by a guest');
      expect(guest.isError).toBe(true);
      expect(textOf(guest)).toContain("nothing is changed on a guest's behalf");
      const viewer = await update(fromBob.conversation.id, 'Changed for Bob');
      expect(viewer.isError).toBe(true);
      expect(textOf(viewer)).toContain('@bob is only a viewer');
      expect((await update(fromAlice.conversation.id, 'Pricing (final)')).isError).toBeFalsy();
      const created = await mcp.call('create_document', {
        collection: 'specs',
        title: 'Made for a guest',
        summary: 'x',
        conversation: fromGuest.conversation.id,
      });
      expect(created.isError).toBe(true);
      expect(textOf(created)).toContain('You may not create a document for this conversation');
    } finally {
      await mcp.close();
    }
    expect((await app.documents.get(w.h.workspace, 'SPEC-1')).title).toBe('Pricing (final)');
  });
});
