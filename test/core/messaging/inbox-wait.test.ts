// A take marks what it returns read, and the answer to an aborted wait is
// dropped (a cancelled MCP request, a closed session, a server that drains):
// whatever is unread when the wait is aborted must stay unread.
import { describe, expect, it, vi } from 'vitest';
import { waitForWake } from '../../../src/core/messaging/inbox-wait.ts';
import type { Notifier } from '../../../src/core/ports.ts';

/** A notifier for one process: a publish wakes the topic's subscribers at once. */
function localNotifier() {
  const subscribers = new Map<string, Set<(payload: string) => void>>();
  const notifier: Notifier = {
    async publish(topics, payload) {
      for (const topic of typeof topics === 'string' ? [topics] : topics)
        for (const fn of subscribers.get(topic) ?? []) fn(payload);
    },
    async subscribe(topic, fn) {
      const set = subscribers.get(topic) ?? new Set();
      subscribers.set(topic, set.add(fn));
      return async () => {
        set.delete(fn);
      };
    },
  };
  return { notifier, listeners: (topic: string) => subscribers.get(topic)?.size ?? 0 };
}

/** An inbox whose take returns every unread message and marks it read. */
function inbox() {
  let unread: string[] = [];
  return {
    deliver: (body: string) => {
      unread.push(body);
    },
    unread: () => [...unread],
    take: vi.fn(async () => {
      const got = unread;
      unread = [];
      return got;
    }),
  };
}

describe('waiting for a wake-up', () => {
  it('takes nothing once aborted while waiting, so what arrived meanwhile stays unread', async () => {
    const { notifier, listeners } = localNotifier();
    const box = inbox();
    const abort = new AbortController();
    const waiting = waitForWake({
      notifier,
      topic: 'inbox:a',
      take: box.take,
      found: (got) => got.length > 0,
      timeoutMs: 60_000,
      signal: abort.signal,
    });
    await vi.waitFor(() => expect(box.take).toHaveBeenCalledTimes(1));
    // The message is stored, but its wake-up (a NOTIFY from another process) has not arrived yet when the client gives up.
    box.deliver('do not lose me');
    abort.abort();

    expect(await waiting).toEqual({ value: [], timedOut: true });
    expect(box.take).toHaveBeenCalledTimes(1);
    expect(box.unread()).toEqual(['do not lose me']);
    expect(listeners('inbox:a')).toBe(0);
  });

  it('takes nothing when aborted before its first take, and says nothing was read', async () => {
    const { notifier, listeners } = localNotifier();
    const box = inbox();
    box.deliver('do not lose me');
    const abort = new AbortController();
    abort.abort();

    await expect(
      waitForWake({
        notifier,
        topic: 'inbox:a',
        take: box.take,
        found: (got) => got.length > 0,
        timeoutMs: 60_000,
        signal: abort.signal,
      }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('nothing was marked read') });
    expect(box.take).not.toHaveBeenCalled();
    expect(box.unread()).toEqual(['do not lose me']);
    expect(listeners('inbox:a')).toBe(0);
  });

  it('hands over what a take already marked read when the abort came while it ran', async () => {
    const { notifier } = localNotifier();
    const box = inbox();
    const abort = new AbortController();
    const take = vi.fn(async () => {
      const got = await box.take();
      abort.abort();
      return got;
    });
    box.deliver('already read');

    expect(
      await waitForWake({
        notifier,
        topic: 'inbox:a',
        take,
        found: (got) => got.length > 0,
        timeoutMs: 60_000,
        signal: abort.signal,
      }),
    ).toEqual({ value: ['already read'], timedOut: false });
  });

  it('still wakes on a publication and returns what it then takes', async () => {
    const { notifier } = localNotifier();
    const box = inbox();
    const waiting = waitForWake({
      notifier,
      topic: 'inbox:a',
      take: box.take,
      found: (got) => got.length > 0,
      timeoutMs: 60_000,
    });
    await vi.waitFor(() => expect(box.take).toHaveBeenCalledTimes(1));
    box.deliver('wake up');
    await notifier.publish('inbox:a', 'm1');

    expect(await waiting).toEqual({ value: ['wake up'], timedOut: false });
    expect(box.take).toHaveBeenCalledTimes(2);
  });
});
