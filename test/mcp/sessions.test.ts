import { describe, expect, it } from 'vitest';
import { SessionRegistry, type Session } from '../../src/mcp/sessions.ts';
import { silent } from '../support/world.ts';

/** A session whose server only records that it was closed. */
function fake(id: string, over: Partial<Session> = {}) {
  const closed = { value: false };
  const session = {
    id,
    agentId: 'agent',
    workspaceId: 'ws',
    workspaceSlug: 'ws',
    inFlight: 0,
    lastSeen: 0,
    server: {
      close: async () => {
        closed.value = true;
      },
    },
    transport: { closeStandaloneSSEStream: () => {} },
    stillAuthorized: async () => true,
    ...over,
  } as unknown as Session;
  return { session, closed };
}

function registry(opts: Partial<{ idleMs: number; max: number }> = {}) {
  let now = 0;
  const r = new SessionRegistry({ idleMs: 1_000, sweepMs: 3_600_000, max: 100, now: () => now, ...opts }, silent);
  return {
    r,
    tick: (ms: number) => {
      now += ms;
    },
  };
}

describe('MCP session registry', () => {
  it('closes sessions idle past the limit, but never one answering a request', async () => {
    const { r, tick } = registry();
    const idle = fake('idle');
    const busy = fake('busy');
    r.add(idle.session);
    r.add(busy.session);
    let finish = () => {};
    r.track(busy.session, (done) => {
      finish = done;
    });
    tick(5_000);
    expect(await r.sweep()).toBe(1);
    expect(idle.closed.value).toBe(true);
    expect(r.get('idle')).toBeUndefined();
    expect(r.get('busy')).toBeDefined();
    finish();
    tick(5_000);
    await r.sweep();
    expect(busy.closed.value).toBe(true);
    await r.closeAll();
  });

  it('closes an open stream whose token no longer authenticates', async () => {
    const { r } = registry();
    const revoked = fake('revoked', { inFlight: 1, stillAuthorized: async () => false });
    r.add(revoked.session);
    await r.sweep();
    expect(revoked.closed.value).toBe(true);
    await r.closeAll();
  });

  it('makes room by closing the oldest idle session when full', async () => {
    const { r, tick } = registry({ max: 2 });
    const first = fake('first');
    r.add(first.session);
    tick(10);
    const second = fake('second', { lastSeen: 10 });
    r.add(second.session);
    r.add(fake('third', { lastSeen: 20 }).session);
    await Promise.resolve();
    expect(first.closed.value).toBe(true);
    expect(r.size).toBe(2);
    await r.closeAll();
  });

  it('closes everything on shutdown, and does not keep a session opened after that', async () => {
    const { r } = registry();
    const open = fake('open');
    r.add(open.session);
    await r.closeAll();
    expect(open.closed.value).toBe(true);
    expect(r.size).toBe(0);
    const late = fake('late');
    r.add(late.session);
    expect(late.closed.value).toBe(true);
    expect(r.size).toBe(0);
  });

  it('on shutdown, lets a call being answered finish before closing its session, within the grace given', async () => {
    const { r } = registry();
    const answering = fake('answering');
    r.add(answering.session);
    let finish = () => {};
    r.track(answering.session, (done) => {
      finish = done;
    });
    const closing = r.closeAll(60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answering.closed.value).toBe(false);
    finish();
    await closing;
    expect(answering.closed.value).toBe(true);
  });

  it('closes a session whose call outlasts the grace', async () => {
    const { r } = registry();
    const stuck = fake('stuck', { inFlight: 1 });
    r.add(stuck.session);
    await r.closeAll(0);
    expect(stuck.closed.value).toBe(true);
  });
});
