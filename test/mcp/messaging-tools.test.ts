import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { INBOX_URI } from '../../src/mcp/resources.ts';
import { appPerFile, connectInProcess, makeWorld, textOf } from '../support/world.ts';

let app: App;
appPerFile((a) => {
  app = a;
});

describe('MCP messaging tools (SDK client in-process)', () => {
  it('lists the tools with input and output schemas', async () => {
    const w = await makeWorld(app);
    const c = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['list_agents', 'send_message', 'check_inbox', 'subscribe', 'search_messages']),
    );
    for (const t of tools.filter((x) => names.includes(x.name))) expect(t.outputSchema?.type).toBe('object');
    const send = tools.find((t) => t.name === 'send_message')!;
    expect(Object.keys(send.inputSchema.properties ?? {})).toEqual(['to', 'conversation', 'body', 'reply_to']);
    expect(c.client.getInstructions()).toContain(`${w.alice}/builder`);
    await c.close();
  });

  it('lists the agents and people the caller can see, and whom it may message', async () => {
    const w = await makeWorld(app, { builder: { canMessage: ['reviewer'] } });
    const c = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const r = await c.call('list_agents');
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as { you: string; agents: Array<Record<string, unknown>> };
    expect(out.you).toBe(w.builder.name);
    expect(out.agents).toEqual(
      expect.arrayContaining([
        {
          name: 'reviewer',
          person: w.bob,
          display_name: 'Reviewer',
          role: 'Reviews things',
          kind: 'agent',
          address: w.reviewer.name,
          may_message: true,
        },
        expect.objectContaining({ name: w.bob, person: w.bob, kind: 'person', address: w.bob, may_message: false }),
      ]),
    );
    expect(out.agents.some((a) => a.address === w.builder.name)).toBe(false);
    expect(textOf(r)).toContain(`${w.bob} (person`);
    await c.close();
  });

  it('sends a message that the recipient reads once with check_inbox, then answers in the same conversation', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const sent = await a.call('send_message', { to: ['reviewer'], body: 'Please review the pull request' });
    expect(sent.isError).toBeFalsy();
    const s = sent.structuredContent as { message_id: string; conversation_id: string; recipients: unknown[] };
    expect(s.recipients).toEqual([{ to: 'reviewer', status: 'delivered' }]);

    const inbox = await b.call('check_inbox', { limit: 10 });
    const got = inbox.structuredContent as {
      messages: Array<Record<string, any>>;
      truncated: boolean;
      remaining: number;
    };
    expect(got.truncated).toBe(false);
    expect(got.messages).toHaveLength(1);
    expect(got.messages[0]).toMatchObject({
      id: s.message_id,
      body: 'Please review the pull request',
      surface: 'mcp',
      permalink: null,
      thread: null,
      sender: { name: 'builder', person: w.alice, kind: 'agent', display_name: 'Builder', address: w.builder.name },
      conversation: { id: s.conversation_id, kind: 'dm' },
      asker: { handle: w.alice, linked: true },
    });
    expect(textOf(inbox)).toContain('Please review the pull request');
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({ messages: [], remaining: 0 });

    const reply = await b.call('send_message', {
      conversation: s.conversation_id,
      reply_to: s.message_id,
      body: 'LGTM',
    });
    expect(reply.structuredContent).toMatchObject({
      conversation_id: s.conversation_id,
      recipients: [{ to: w.builder.name, status: 'delivered' }],
    });
    const back = (await a.call('check_inbox')).structuredContent as { messages: Array<Record<string, any>> };
    expect(back.messages[0]).toMatchObject({ body: 'LGTM', thread: s.message_id });
    await Promise.all([a.close(), b.close()]);
  });

  it("shows a Slack guest's message with its surface, permalink and an unlinked asker", async () => {
    const w = await makeWorld(app);
    const guest = await app.orgs.guestAgent();
    const thread = await app.store.messages.conversation({
      workspaceId: w.ws.id,
      kind: 'external',
      key: `slack:T1:C1:${w.suffix}`,
      title: '#general thread',
      surface: 'slack',
      permalink: 'https://acme.slack.com/archives/C1/p1700000000000100',
    });
    const builder = await app.agents.member(w.builder.agent, w.ws);
    await app.messaging.send({
      workspace: w.ws,
      sender: guest,
      asGuest: true,
      askerIdentityId: randomUUID(),
      conversation: thread,
      recipients: [builder],
      body: '@builder what is the build status?',
      surface: 'slack',
      permalink: 'https://acme.slack.com/archives/C1/p1700000000000200',
    });
    const c = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const [item] = ((await c.call('check_inbox')).structuredContent as { messages: Array<Record<string, unknown>> })
      .messages;
    expect(item).toMatchObject({
      surface: 'slack',
      permalink: 'https://acme.slack.com/archives/C1/p1700000000000200',
      conversation: { id: thread.id, kind: 'external', title: '#general thread' },
      sender: { kind: 'person', name: 'guest' },
      asker: { handle: null, linked: false },
    });
    await c.close();
  });

  it('says when it cut the inbox, and how many are left', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    for (let i = 0; i < 3; i++) await a.call('send_message', { to: ['reviewer'], body: `note ${i}` });
    const first = (await b.call('check_inbox', { limit: 2 })).structuredContent as {
      messages: Array<{ body: string }>;
      truncated: boolean;
      remaining: number;
    };
    expect(first.messages.map((m) => m.body)).toEqual(['note 0', 'note 1']);
    expect(first).toMatchObject({ truncated: true, remaining: 1 });
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses an ambiguous bare name with the candidates, as a tool error', async () => {
    const w = await makeWorld(app);
    const other = await app.agents.add(SYSTEM, { name: 'builder', owner: w.bob });
    await app.agents.join(SYSTEM, { agent: `${w.bob}/builder`, workspace: w.ws.slug });
    const c = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const r = await c.call('send_message', { to: ['builder'], body: 'hi' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(
      `"builder" is ambiguous in this workspace: it could be ${w.alice}/builder, ${w.bob}/builder. Use the owner/name form.`,
    );
    expect(r.structuredContent).toMatchObject({
      message_id: null,
      recipients: [{ to: 'builder', status: 'refused', rule: 'ambiguous_recipient' }],
    });
    expect(other.agent.id).toBeTruthy();
    await c.close();
  });

  it('turns a domain refusal into isError with a sentence and the code in _meta, and audits it', async () => {
    const w = await makeWorld(app, { builder: { send: false } });
    const c = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const r = await c.call('send_message', { to: ['reviewer'], body: 'hi' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe('You do not have the send permission in this workspace; ask your owner to grant it.');
    expect(r._meta?.[ERROR_META_KEY]).toEqual({ code: 'NOT_PERMITTED' });
    const [entry] = await app.store.audit.list(w.ws.id, 1);
    expect(entry).toMatchObject({
      action: 'send_message',
      agentId: w.builder.agent.id,
      target: 'reviewer',
      result: 'refused: NOT_PERMITTED',
    });
    await c.close();
  });

  it('answers a conversation the agent cannot see exactly as a made-up id, and a monitor, who can see it, that it is not part of it', async () => {
    const w = await makeWorld(app);
    await app.agents.add(SYSTEM, { name: 'third', owner: w.bob });
    await app.agents.join(SYSTEM, { agent: `${w.bob}/third`, workspace: w.ws.slug });
    const dm = (
      await app.messaging.send({
        workspace: w.ws,
        sender: w.reviewer.agent,
        to: [`${w.bob}/third`],
        body: 'between us',
      })
    ).conversation!.id;
    const madeUp = randomUUID();
    const c = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const calls = (id: string) => [
      c.call('send_message', { conversation: id, body: 'hello?' }),
      c.call('set_status', { conversation: id, text: 'is looking…' }),
      c.call('start_message', { conversation: id, text: 'hello?' }),
    ];
    const seen = await Promise.all(calls(dm));
    const unknown = await Promise.all(calls(madeUp));
    for (const [i, r] of seen.entries()) {
      expect(r.isError).toBe(true);
      expect(r._meta?.[ERROR_META_KEY]).toEqual({ code: 'NOT_FOUND' });
      expect(textOf(r)).toBe(
        `There is no conversation ${dm} in this workspace; use the conversation id of a message you received.`,
      );
      expect(textOf(r).replace(dm, madeUp)).toBe(textOf(unknown[i]));
    }
    // A monitor reads every conversation, so it is told the real reason: it may read there, not speak.
    await app.agents.join(SYSTEM, { agent: w.builder.name, workspace: w.ws.slug, monitor: true });
    const monitor = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const r = await monitor.call('send_message', { conversation: dm, body: 'hello?' });
    expect(r._meta?.[ERROR_META_KEY]).toEqual({ code: 'NOT_PERMITTED' });
    expect(textOf(r)).toMatch(/^You are not part of that conversation/);
    await Promise.all([c.close(), monitor.close()]);
  });

  it('rejects arguments that fail the schema with a readable tool error', async () => {
    const w = await makeWorld(app);
    const c = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const r = await c.call('subscribe', { timeout_seconds: 120 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/timeout_seconds/);
    await c.close();
  });

  it('records every send in the audit trail with the person it acted for', async () => {
    const w = await makeWorld(app);
    const c = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const sent = (await c.call('send_message', { to: ['reviewer', 'nobody-here'], body: 'audit me' }))
      .structuredContent as { message_id: string };
    const [entry] = await app.store.audit.list(w.ws.id, 1);
    const person = await app.store.people.get(w.alice);
    expect(entry).toMatchObject({
      action: 'send_message',
      agentId: w.builder.agent.id,
      workspaceId: w.ws.id,
      onBehalfOf: person!.id,
      target: 'reviewer, nobody-here',
      result: 'partly delivered',
      details: expect.objectContaining({ message_id: sent.message_id }),
    });
    expect(entry.createdAt).toBeInstanceOf(Date);
    await c.close();
  });

  it('subscribe returns at once when messages are unread, and wakes on a new one', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const waiting = b.call('subscribe', { timeout_seconds: 20 });
    await new Promise((r) => setImmediate(r));
    const started = Date.now();
    await a.call('send_message', { to: ['reviewer'], body: 'wake up' });
    const got = (await waiting).structuredContent as { messages: Array<{ body: string }>; timed_out: boolean };
    expect(got.timed_out).toBe(false);
    expect(got.messages.map((m) => m.body)).toEqual(['wake up']);
    expect(Date.now() - started).toBeLessThan(5_000);

    const timedOut = (await b.call('subscribe', { timeout_seconds: 0.2 })).structuredContent;
    expect(timedOut).toMatchObject({ messages: [], timed_out: true, remaining: 0 });
    await Promise.all([a.close(), b.close()]);
  });

  it('leaves a message unread when the client cancels the subscribe that was waiting for it', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const takes = vi.spyOn(app.store.messages, 'takeUnread');
    const waits = vi.spyOn(app.messaging, 'waitForInbox');
    try {
      const cancel = new AbortController();
      const waiting = b.client.callTool({ name: 'subscribe', arguments: { timeout_seconds: 20 } }, undefined, {
        signal: cancel.signal,
      });
      await vi.waitFor(() => expect(takes).toHaveBeenCalledTimes(1));
      // The message is stored, but its wake-up (a NOTIFY from another process) is still on its way when the client gives up.
      const publish = vi.spyOn(app.notifier, 'publish').mockResolvedValue();
      await a.call('send_message', { to: ['reviewer'], body: 'do not lose me' });
      publish.mockRestore();
      cancel.abort();
      await expect(waiting).rejects.toThrow();
      // The server's wait has ended (the SDK drops its answer) before the inbox is checked.
      await waits.mock.results[0].value.catch(() => {});

      const inbox = (await b.call('check_inbox', { limit: 10 })).structuredContent as {
        messages: Array<{ body: string }>;
      };
      expect(inbox.messages.map((m) => m.body)).toEqual(['do not lose me']);
    } finally {
      takes.mockRestore();
      waits.mockRestore();
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('searches what the caller sent or received, ranked with a snippet', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    await a.call('send_message', { to: ['reviewer'], body: 'The deployment pipeline failed on the staging cluster' });
    await a.call('send_message', { to: ['reviewer'], body: 'Lunch at noon?' });
    const r = await a.call('search_messages', { query: 'staging deployment' });
    const out = r.structuredContent as {
      results: Array<{ body: string; snippet: string; sender: { address: string } }>;
    };
    expect(out.results).toHaveLength(1);
    expect(out.results[0].snippet).toContain('**deployment**');
    expect(out.results[0].sender.address).toBe(w.builder.name);
    await a.close();
  });

  it('notifies a client subscribed to the inbox resource when a message lands', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const { ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const updated = new Promise<string>((resolve) =>
      b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)),
    );
    await b.client.subscribeResource({ uri: INBOX_URI });
    await a.call('send_message', { to: ['reviewer'], body: 'ping' });
    expect(await updated).toBe(INBOX_URI);
    const read = await b.client.readResource({ uri: INBOX_URI });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      unread: 1,
      agent: w.reviewer.name,
    });
    await Promise.all([a.close(), b.close()]);
  });
});
