// The heart of the Slack surface, through the whole server as `npm start`
// composes it (MCP, Slack, web chat): a person mentions the app in a channel,
// the agent reads it with check_inbox over MCP and answers with send_message,
// and the answer appears in the same Slack thread under the agent's name.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startHarness, type Harness } from '../../support/slack/harness.ts';

interface InboxMessage {
  id: string;
  body: string;
  surface: string;
  permalink: string | null;
  conversation: { id: string; kind: string };
  asker: { linked: boolean };
}

describe('a mention in a Slack channel', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let mcp: Client;
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
    return r.structuredContent as Record<string, unknown>;
  };

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser('U0CAROL01', { real_name: 'Carol Chen', display_name: 'carol', email: 'carol@example.test' });
    h = await startHarness({ database: db, standin, seed: true, allMounts: true });
    mcp = new Client({ name: 'slack-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${h.server.url}/mcp/eng`), {
        requestInit: { headers: { Authorization: `Bearer ${h.reviewerToken}` } },
      }),
    );
  });
  afterAll(async () => {
    await mcp?.close();
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it("reaches the named agent's check_inbox, and its send_message lands in the same thread under its name and avatar", async () => {
    const mention = appMention({
      user: 'U0CAROL01',
      channel: 'C0GENERAL',
      text: `<@${SLACK_DEFAULTS.botUserId}> ask @reviewer to look at #418`,
    });
    const started = Date.now();
    const res = await h.post(eventCallback(mention));
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);

    const seen: InboxMessage[] = [];
    const item = await vi.waitFor(
      async () => {
        seen.push(...((await call('check_inbox')).messages as InboxMessage[]));
        expect(seen).toHaveLength(1);
        return seen[0];
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(item).toMatchObject({
      body: 'ask @reviewer to look at #418',
      surface: 'slack',
      asker: { linked: false },
      conversation: { kind: 'external' },
      permalink: `https://${SLACK_DEFAULTS.teamDomain}.slack.com/archives/C0GENERAL/p${mention.ts.replace('.', '')}`,
    });

    await call('send_message', { conversation: item.conversation.id, body: 'Looking at #418 now.' });
    const post = await vi.waitFor(
      () => {
        const calls = standin.callsTo('chat.postMessage').filter((c) => c.args.text === 'Looking at #418 now.');
        expect(calls).toHaveLength(1);
        return calls[0];
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(post.args).toMatchObject({
      channel: 'C0GENERAL',
      thread_ts: mention.ts,
      username: 'Reviewer',
      icon_url: 'https://example.test/reviewer.png',
      metadata: { event_type: 'switchboard_message', event_payload: { agent: 'alice/reviewer' } },
    });

    // The linked conversation holds both sides: the person's request and the agent's answer.
    const found = (await call('search_messages', { query: '418' })) as {
      results: Array<{ body: string; conversation_id: string }>;
    };
    expect(found.results.map((r) => [r.body, r.conversation_id]).sort()).toEqual([
      ['Looking at #418 now.', item.conversation.id],
      ['ask @reviewer to look at #418', item.conversation.id],
    ]);
  });
});
