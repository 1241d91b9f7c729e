// The link DM when Slack refuses it once (conversations.open answers 429):
// nothing is recorded as sent, so the person's next message prompts again, and
// a workspace that requires linking never claims a DM it could not send.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { promptedPath, startLinkingWorld, type LinkingWorld } from '../../support/slack/linking-world.ts';

const HANK = 'U0HANK001';
const IRIS = 'U0IRIS001';

describe('a link DM Slack refused', () => {
  let w: LinkingWorld;
  const seen: InboxItem[] = [];
  const received = (body: string) =>
    vi.waitFor(
      async () => {
        seen.push(...(await w.h.server.app.messaging.checkInbox(w.h.reviewer, w.h.workspace, 50).then((r) => r.items)));
        if (!seen.some((i) => i.message.body === body)) throw new Error(`reviewer has not received "${body}"`);
      },
      { timeout: 20_000, interval: 50 },
    );
  /** The sentences the app told `user` in the channel (ephemeral), oldest first, once there are `n`. */
  const told = (user: string, n: number) =>
    vi.waitFor(
      () => {
        const found = w.standin
          .callsTo('chat.postEphemeral')
          .filter((c) => c.args.user === user)
          .map((c) => String(c.args.text));
        if (found.length < n) throw new Error(`${user} was told ${found.length} times, not ${n}`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
  const identity = (user: string) =>
    w.h.server.app.store.identities.find({ surface: 'slack', tenantId: SLACK_DEFAULTS.teamId, externalUserId: user });

  beforeAll(async () => {
    w = await startLinkingWorld({ [HANK]: 'Hank Hill', [IRIS]: 'Iris Ito' });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('sends the prompt at the next message when the first DM could not be sent', async () => {
    w.standin.failNext('conversations.open', { status: 429, retryAfter: 1 });
    await w.mention(HANK, '@reviewer first try');
    await received('@reviewer first try');
    expect(w.prompts(HANK)).toHaveLength(0);
    expect((await identity(HANK))?.linkPromptedAt).toBeNull();

    await w.mention(HANK, '@reviewer second try');
    await received('@reviewer second try');
    await promptedPath(w, HANK);
    await w.mention(HANK, '@reviewer third try');
    await received('@reviewer third try');
    expect(w.prompts(HANK)).toHaveLength(1);
  });

  it('with linking required, says the DM could not be sent (and how to get a link), then sends it at the next message', async () => {
    const { app } = w.h.server;
    await app.store.workspaces.update(w.h.workspace.id, { requireLinking: true });
    try {
      w.standin.failNext('conversations.open', { status: 429, retryAfter: 1 });
      await w.mention(IRIS, '@reviewer let me in');
      const [first] = await told(IRIS, 1);
      expect(first).toContain('I could not send you a DM');
      expect(first).toContain('`/switchboard link`');
      expect(first).not.toContain('I sent you');
      expect(w.prompts(IRIS)).toHaveLength(0);

      await w.mention(IRIS, '@reviewer please?');
      const [, second] = await told(IRIS, 2);
      expect(second).toContain('I sent you a link in a DM');
      await promptedPath(w, IRIS);
      expect(w.prompts(IRIS)).toHaveLength(1);
    } finally {
      await app.store.workspaces.update(w.h.workspace.id, { requireLinking: false });
    }
  });
});
