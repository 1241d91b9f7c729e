// Switchboard links pasted into Slack, through signed `link_shared` and
// `entity_details_requested` events and the Web API stand-in's chat.unfurl and
// entity.presentDetails: a Work Object with the item's state when everyone in
// the channel may see it (an approval's buttons only for someone who may
// decide), only a title and the link otherwise, nothing for other links; an
// approval decided from its preview, and the preview drawn again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { APPROVE_ACTION, REJECT_ACTION } from '../../../src/surfaces/slack/approvals.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import {
  appMention,
  entityDetailsRequested,
  eventCallback,
  linkShared,
  nextEventTs,
  type LinkSharedInput,
  unfurlBlockActions,
} from '../../support/slack/signed-request.ts';
import { startSlackStandin, type RecordedCall, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startApprovalsWorld, USERS, type ApprovalsWorld } from '../../support/slack/approvals-world.ts';

type Entity = {
  app_unfurl_url?: string;
  url: string;
  entity_type: string;
  external_ref: { id: string; type?: string };
  entity_payload: {
    attributes: { title: { text: string }; display_type?: string; display_id?: string };
    fields?: Record<string, { value?: unknown }>;
    custom_fields?: Array<{ key: string; value?: unknown }>;
    actions?: { primary_actions?: Array<{ action_id: string; value?: string }> };
  };
};

const PUBLIC_URL = 'https://switchboard.acme.test';
/** Private channels, so their members are read (and waited for) rather than the whole team's roster. */
const DEPLOYS = 'G0DEPLOYS1';
const MIXED = 'G0MIXED001';

describe('Switchboard links in Slack', () => {
  let db: Database;
  let standin: SlackStandin;
  let world: ApprovalsWorld;
  let mcp: Awaited<ReturnType<ApprovalsWorld['mcp']>>;
  /** The thread carol started in #deploys by asking deployer, its conversation, and the message the agent got. */
  let thread: { conversationId: string; ts: string; messageId: string };
  let approvalId: string;
  let approvalLink: string;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    world = await startApprovalsWorld({ database: db, standin, env: { PUBLIC_URL } });
    mcp = await world.mcp();
    standin.setChannel(DEPLOYS, { name: 'deploys', is_private: true });
    standin.setChannelMembers(DEPLOYS, [SLACK_DEFAULTS.botUserId, USERS.bob, USERS.carol]);
    standin.setChannel(MIXED, { name: 'mixed', is_private: true });
    standin.setChannelMembers(MIXED, [SLACK_DEFAULTS.botUserId, USERS.bob, USERS.dan]);
    const mention = appMention({
      user: USERS.carol,
      channel: DEPLOYS,
      text: `<@${SLACK_DEFAULTS.botUserId}> @deployer ship v3`,
    });
    expect((await world.post(eventCallback(mention))).status).toBe(200);
    const item = await vi.waitFor(
      async () => {
        const found = (await world.app.messaging.checkInbox(world.deployer, world.ws, 50)).items[0];
        if (!found) throw new Error('not delivered yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    thread = { conversationId: item.conversation.id, ts: mention.ts, messageId: item.message.id };
    const asked = await mcp.call('request_approval', {
      title: 'Deploy v3 to production',
      details: 'Runs **migrations** first.',
      conversation: thread.conversationId,
    });
    approvalId = (asked.structuredContent as { approval_id: string }).approval_id;
    approvalLink = `${PUBLIC_URL}/#/w/eng/approvals/${approvalId}`;
  });
  afterAll(async () => {
    await mcp?.close();
    await world?.stop();
    await standin?.close();
    await db?.close();
  });

  /** A message with these links, posted by `user` in `channel`, and the link_shared event Slack sends for it. */
  async function share(user: string, channel: string, urls: string[], extra: Partial<LinkSharedInput> = {}) {
    const ts = nextEventTs();
    standin.seedMessage(channel, { ts, user, text: urls.join(' ') });
    const event = linkShared({ user, channel, urls, message_ts: ts, ...extra });
    expect((await world.post(eventCallback(event))).status).toBe(200);
    return ts;
  }

  const unfurlsOf = (ts: string) => standin.callsTo('chat.unfurl').filter((c) => c.args.ts === ts);
  const entitiesOf = (call: RecordedCall) => (call.args.metadata as { entities: Entity[] }).entities;

  /** The Work Objects Slack was given for the message at `ts` (the first chat.unfurl for it). */
  async function unfurled(ts: string): Promise<Entity[]> {
    const call = await vi.waitFor(
      () => {
        const [c] = unfurlsOf(ts);
        if (!c) throw new Error(`no chat.unfurl for ${ts} yet`);
        return c;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(call.status).toBe(200);
    expect((call.response as { ok: boolean }).ok).toBe(true);
    return entitiesOf(call);
  }

  const buttons = (e: Entity) => (e.entity_payload.actions?.primary_actions ?? []).map((a) => a.action_id);
  const expectHidden = (e: Entity, posted: string) => {
    expect(e.entity_payload.attributes.title.text).toBe('Switchboard link');
    expect(e.entity_payload.fields).toBeUndefined();
    expect(e.entity_payload.actions).toBeUndefined();
    expect(e.entity_payload.custom_fields).toEqual([
      { key: 'open', label: 'Open in Switchboard', type: 'slack#/types/link', value: posted },
    ]);
    expect(JSON.stringify(e)).not.toMatch(/Deploy v3|migrations|ship v3/);
  };

  it("previews an approval for the channel's members with its state, and Approve and Reject when the person who shared it may decide", async () => {
    const [byDecider] = await unfurled(await share(USERS.bob, DEPLOYS, [approvalLink]));
    expect(byDecider).toMatchObject({
      app_unfurl_url: approvalLink,
      url: approvalLink,
      entity_type: 'slack#/entities/task',
      external_ref: { id: `eng/${approvalId}`, type: 'approval' },
      entity_payload: {
        attributes: { title: { text: 'Deploy v3 to production' }, display_type: 'Approval' },
        fields: { status: { value: 'pending' }, description: { value: 'Runs **migrations** first.' } },
      },
    });
    expect(byDecider.entity_payload.actions?.primary_actions).toEqual([
      expect.objectContaining({ action_id: APPROVE_ACTION, value: approvalId }),
      expect.objectContaining({ action_id: REJECT_ACTION, value: approvalId }),
    ]);

    // Carol asked for it, reads the channel, and may not decide: the same state, no buttons.
    const [byAsker] = await unfurled(await share(USERS.carol, DEPLOYS, [approvalLink]));
    expect(byAsker.entity_payload.fields?.status).toMatchObject({ value: 'pending' });
    expect(buttons(byAsker)).toEqual([]);
  });

  it('shows only a title and the link where someone unlinked reads the channel, even when a decider shares it', async () => {
    const [byUnlinked] = await unfurled(await share(USERS.dan, MIXED, [approvalLink]));
    expectHidden(byUnlinked, approvalLink);
    const [byDecider] = await unfurled(await share(USERS.bob, MIXED, [approvalLink]));
    expectHidden(byDecider, approvalLink);
  });

  it('shows only a title in a DM between two people, whose members the app cannot read', async () => {
    const [inDm] = await unfurled(await share(USERS.bob, 'D0BOBCAROL', [approvalLink], { is_bot_user_member: false }));
    expectHidden(inDm, approvalLink);
    // Nothing was asked of Slack about a conversation the app is not in.
    expect(standin.callsTo('conversations.members').some((c) => c.args.channel === 'D0BOBCAROL')).toBe(false);
  });

  it('previews a document, an intake item and a conversation in one message', async () => {
    const org = { name: 'Acme', slug: 'acme' };
    const access = { role: 'owner' as const, hasSeat: true, agentId: null, personHandle: 'alice', org };
    const collection = await world.app.documents.createCollection(world.ws, access, { type: 'specs' });
    const doc = await world.app.documents.create(world.ws, access, {
      collection: collection.key,
      title: 'Rollout plan',
      summary: 'How v3 reaches production.',
    });
    const item = await world.app.intake.file(world.deployer, world.ws, {
      title: 'Ship v3',
      kind: 'feature request',
      summary: 'Carol wants v3 out.',
      sourceIds: [thread.messageId],
    });
    const links = [
      `${PUBLIC_URL}/docs/eng/d/${doc.identifier}`,
      `${PUBLIC_URL}/#/w/eng/intake/${item.id}`,
      `${PUBLIC_URL}/#/w/eng/c/${thread.conversationId}`,
    ];
    const [document, intake, conversation] = await unfurled(await share(USERS.carol, DEPLOYS, links));
    expect(document).toMatchObject({
      app_unfurl_url: links[0],
      entity_type: 'slack#/entities/content_item',
      entity_payload: {
        attributes: { title: { text: 'Rollout plan' }, display_id: doc.identifier, display_type: 'Document' },
        fields: { description: { value: 'How v3 reaches production.' } },
      },
    });
    expect(intake).toMatchObject({
      entity_type: 'slack#/entities/task',
      entity_payload: {
        attributes: { title: { text: 'Ship v3' }, display_type: 'Intake item' },
        fields: { status: { value: 'new' }, description: { value: 'Carol wants v3 out.' } },
      },
    });
    expect(conversation).toMatchObject({
      entity_type: 'slack#/entities/item',
      entity_payload: { attributes: { display_type: 'Conversation' } },
    });
    expect(conversation.entity_payload.custom_fields).toContainEqual(
      expect.objectContaining({ key: 'where', value: 'Slack' }),
    );
    // Someone unlinked reads #mixed: none of them shows there.
    for (const e of await unfurled(await share(USERS.bob, MIXED, links)))
      expect(e.entity_payload.fields).toBeUndefined();
  });

  it('leaves links to another host, pages that are not one item, and links still being written alone', async () => {
    const other = await share(USERS.bob, DEPLOYS, [
      `https://elsewhere.example/#/w/eng/approvals/${approvalId}`,
      `${PUBLIC_URL}/#/w/eng/intake`,
    ]);
    // One of ours in the same message is previewed, alone.
    const mixed = await share(USERS.bob, DEPLOYS, ['https://elsewhere.example/x', approvalLink]);
    expect((await unfurled(mixed)).map((e) => e.app_unfurl_url)).toEqual([approvalLink]);
    const composing = linkShared({ user: USERS.bob, channel: DEPLOYS, urls: [approvalLink], source: 'composer' });
    expect((await world.post(eventCallback(composing))).status).toBe(200);
    // Handled once no stored Slack request waits any more.
    await vi.waitFor(async () => {
      for (const status of ['pending', 'queued'] as const)
        expect(await world.app.jobs.list({ status, topic: SLACK_INBOUND })).toEqual([]);
    });
    expect(unfurlsOf(other)).toEqual([]);
    expect(unfurlsOf(composing.message_ts)).toEqual([]);
  });

  it('opens the details pane with the preview, and the buttons only for someone who may decide', async () => {
    const open = async (user: string) => {
      const event = entityDetailsRequested({ user, url: approvalLink, channel: DEPLOYS });
      expect((await world.post(eventCallback(event))).status).toBe(200);
      const call = await vi.waitFor(
        () => {
          const c = standin.callsTo('entity.presentDetails').find((x) => x.args.trigger_id === event.trigger_id);
          if (!c) throw new Error('no entity.presentDetails yet');
          return c;
        },
        { timeout: 20_000, interval: 50 },
      );
      expect((call.response as { ok: boolean }).ok).toBe(true);
      return call.args.metadata as Entity;
    };
    const forCarol = await open(USERS.carol);
    expect(forCarol.app_unfurl_url).toBeUndefined();
    expect(forCarol.entity_payload.fields?.status).toMatchObject({ value: 'pending' });
    expect(buttons(forCarol)).toEqual([]);
    expect(buttons(await open(USERS.bob))).toEqual([APPROVE_ACTION, REJECT_ACTION]);
  });

  it("decides from the preview's Approve button, and draws the preview again with the outcome", async () => {
    const ts = await share(USERS.bob, DEPLOYS, [approvalLink]);
    const [before] = await unfurled(ts);
    expect(buttons(before)).toContain(APPROVE_ACTION);
    const click = unfurlBlockActions({
      user: USERS.bob,
      channel: DEPLOYS,
      message_ts: ts,
      url: approvalLink,
      external_ref: before.external_ref,
      action: { action_id: APPROVE_ACTION, value: approvalId, text: 'Approve' },
    });
    expect((await world.post(click)).status).toBe(200);
    await vi.waitFor(
      async () => expect((await world.app.approvals.get(world.ws.id, approvalId)).status).toBe('approved'),
      { timeout: 20_000, interval: 50 },
    );
    const after = await vi.waitFor(
      () => {
        const calls = unfurlsOf(ts);
        if (calls.length < 2) throw new Error('the preview was not drawn again yet');
        return entitiesOf(calls.at(-1)!)[0];
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(after.entity_payload.fields?.status).toMatchObject({ value: 'approved' });
    expect(after.entity_payload.custom_fields).toContainEqual(
      expect.objectContaining({ key: 'outcome', value: expect.stringMatching(/^Approved by @bob in Slack/) }),
    );
    expect(buttons(after)).toEqual([]);
  });
});
