// Approvals answered by the agent's owner through MCP elicitation: a real SDK
// client declaring the capability, in-process, against the real server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import type { Agent } from '../../src/core/entities.ts';
import { openToolContext } from '../../src/mcp/context.ts';
import { buildMcpServer } from '../../src/mcp/server.ts';
import { appPerFile, connectInProcess, makeWorld, textOf } from '../support/world.ts';

let app: App;
appPerFile((a) => {
  app = a;
});

type Out = Record<string, any>;

/** A client whose user answers elicitations with `answer` (which sees the request and its abort signal). */
async function elicitingClient(
  agent: Agent,
  workspace: string,
  answer: (req: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>,
) {
  const server = await buildMcpServer(await openToolContext(app, agent, workspace));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'eliciting-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req, extra) => answer(req, extra.signal));
  await client.connect(clientSide);
  return {
    call: (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe('approvals answered through MCP elicitation', () => {
  it('asks the owner in the client and settles the approval with their answer, via mcp, for every view', async () => {
    const w = await makeWorld(app);
    const asked: ElicitRequest[] = [];
    const c = await elicitingClient(w.builder.agent, w.ws.slug, async (req) => {
      asked.push(req);
      return { action: 'accept', content: { decision: 'approve', reason: 'Go ahead' } };
    });
    const r = await c.call('request_approval', { title: 'Deploy #7', details: 'Ship it.', ask_owner_here: true });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as Out;
    expect(out).toMatchObject({ status: 'approved', asked_here: true });
    expect(asked).toHaveLength(1);
    expect(asked[0].params.message).toContain('“Deploy #7”');
    // No chat app is configured here, so none is named as another place to decide.
    expect(asked[0].params.message).toContain('the first decision anywhere (here or the web) settles it');
    expect((asked[0].params as { requestedSchema: { required: string[] } }).requestedSchema.required).toEqual([
      'decision',
    ]);
    expect(textOf(r)).toMatch(new RegExp(`^Your owner decided here: Approved by @${w.alice} in an MCP client`));

    const seen = (await c.call('get_approval', { approval_id: out.approval_id })).structuredContent as Out;
    expect(seen).toMatchObject({ status: 'approved', decided_by: w.alice, via: 'mcp', reason: 'Go ahead' });
    await c.close();
  });

  it('leaves the approval pending for the other surfaces when the owner declines to answer', async () => {
    const w = await makeWorld(app);
    const c = await elicitingClient(w.builder.agent, w.ws.slug, async () => ({ action: 'decline' }));
    const r = await c.call('request_approval', { title: 'Rotate keys', ask_owner_here: true });
    expect(r.structuredContent).toMatchObject({ status: 'pending', asked_here: true });
    expect(textOf(r)).toMatch(
      /^Your owner did not decide here \(decline\); it stays pending for the approvers on the other surfaces/,
    );
    await c.close();
  });

  it('withdraws the question when someone decides elsewhere first, and reports that decision', async () => {
    const w = await makeWorld(app);
    let withdrawn = false;
    let asking: (() => void) | null = null;
    const open = new Promise<void>((resolve) => {
      asking = resolve;
    });
    // The reviewer (bob's agent) asks bob; alice, an owner of the workspace, decides on the web meanwhile.
    let calls = 0;
    const c = await elicitingClient(w.reviewer.agent, w.ws.slug, (_req, signal) =>
      calls++ === 0
        ? Promise.resolve({ action: 'decline' as const })
        : new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              withdrawn = true;
              reject(new Error('withdrawn'));
            });
            asking!();
          }),
    );
    // The SDK ignores a cancellation of request id 0 (a falsy id), so the first question is answered and the second withdrawn.
    const first = (await c.call('request_approval', { title: 'Warm-up', ask_owner_here: true }))
      .structuredContent as Out;
    await app.approvals.cancel(w.reviewer.agent, w.ws.id, first.approval_id);
    const pending = c.call('request_approval', { title: 'Drop the staging database', ask_owner_here: true });
    await open;
    const [{ id }] = await app.store.approvals.listPending(w.ws.id);
    const alice = (await app.store.people.get(w.alice))!;
    await app.approvals.decide({
      approvalId: id,
      workspaceId: w.ws.id,
      decision: 'rejected',
      decider: { personId: alice.id, role: 'owner' },
      via: 'web',
    });
    const r = await pending;
    expect(r.structuredContent).toMatchObject({ status: 'rejected', asked_here: true });
    expect(textOf(r)).toMatch(
      new RegExp(`settled elsewhere while your owner was asked here: Rejected by @${w.alice} in the web chat`),
    );
    await vi.waitFor(() => expect(withdrawn).toBe(true), { timeout: 10_000, interval: 20 });
    await c.close();
  });

  it('does not ask when the client has no elicitation, or when the owner may not decide, and says why', async () => {
    const w = await makeWorld(app);
    const plain = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const r = await plain.call('request_approval', { title: 'Deploy', ask_owner_here: true });
    expect(r.structuredContent).toMatchObject({ status: 'pending', asked_here: false });
    expect(textOf(r)).toMatch(/^Your MCP client does not support elicitation, so your owner was not asked here/);
    await plain.close();

    let asked = 0;
    const c = await elicitingClient(w.builder.agent, w.ws.slug, async () => {
      asked++;
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const named = await c.call('request_approval', { title: 'Deploy', approvers: [w.bob], ask_owner_here: true });
    expect(named.structuredContent).toMatchObject({ status: 'pending', asked_here: false });
    expect(textOf(named)).toMatch(
      /^Your owner was not asked here, since they may not decide it \(Only the approvers this request names can decide it\.\)/,
    );
    expect(asked).toBe(0);
    await c.close();
  });
});
