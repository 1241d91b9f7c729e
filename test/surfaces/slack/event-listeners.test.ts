// Event listeners reach Bolt as one listener (event-listeners.ts): each event still runs every listener of its type,
// and only those; failures come out of Bolt as they did with a Bolt listener each.
import { App as BoltApp, LogLevel, MultipleListenerError } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { eventListeners } from '../../../src/surfaces/slack/event-listeners.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, message } from '../../support/slack/payloads.ts';

function setUp() {
  const bolt = new BoltApp({
    signingSecret: SLACK_DEFAULTS.signingSecret,
    logLevel: LogLevel.ERROR,
    convoStore: false,
    authorize: async () => ({
      botToken: 'xoxb-test',
      botId: SLACK_DEFAULTS.botId,
      botUserId: SLACK_DEFAULTS.botUserId,
    }),
  });
  const errors: unknown[] = [];
  bolt.error(async (e) => {
    errors.push((e as { original?: unknown }).original ?? e);
  });
  const events = eventListeners(bolt);
  const handle = (payload: unknown) =>
    bolt.processEvent({ body: payload as Record<string, unknown>, ack: async () => {} });
  return { bolt, events, errors, handle };
}

const mention = () =>
  eventCallback(appMention({ user: 'U0PERSON', channel: 'C0CHAN', text: `<@${SLACK_DEFAULTS.botUserId}> hi` })).payload;
const dm = () =>
  eventCallback(message({ user: 'U0PERSON', channel: 'D0DM', text: 'hello', channel_type: 'im' })).payload;

describe('Slack event listeners, installed as one Bolt listener', () => {
  it("runs every listener of the event's type, and none of another type", async () => {
    const { events, handle } = setUp();
    const ran: string[] = [];
    events.listeners.event('app_mention', async ({ event }) => {
      ran.push(`first ${event.text}`);
    });
    events.listeners.event('app_mention', async () => {
      ran.push('second');
    });
    events.listeners.message(async ({ message: m }) => {
      ran.push(`message ${'text' in m ? m.text : ''}`);
    });
    events.listeners.event('reaction_added', async () => {
      ran.push('reaction');
    });
    events.install();
    await handle(mention());
    expect(ran.sort()).toEqual([`first <@${SLACK_DEFAULTS.botUserId}> hi`, 'second']);
    ran.length = 0;
    await handle(dm());
    expect(ran).toEqual(['message hello']);
  });

  it("gives Bolt's error handler a failing listener's own error, and Bolt's MultipleListenerError for several", async () => {
    const { events, errors, handle } = setUp();
    let others = 0;
    events.listeners.event('app_mention', async () => {
      throw new Error('first failed');
    });
    events.listeners.event('app_mention', async () => {
      others += 1;
    });
    events.listeners.message(async () => {
      throw new Error('message failed');
    });
    events.listeners.message(async () => {
      throw new Error('message failed again');
    });
    events.install();
    await handle(mention());
    // The other listener of the type ran all the same.
    expect(others).toBe(1);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('first failed');
    await handle(dm());
    expect(errors[1]).toBeInstanceOf(MultipleListenerError);
    expect((errors[1] as MultipleListenerError).originals.map((e) => e.message).sort()).toEqual([
      'message failed',
      'message failed again',
    ]);
  });

  it('runs the others of the type when one throws before it returns a promise', async () => {
    const { events, errors, handle } = setUp();
    let others = 0;
    const throwsAtOnce = (() => {
      throw new Error('at once');
    }) as unknown as () => Promise<void>;
    events.listeners.event('app_mention', throwsAtOnce);
    events.listeners.event('app_mention', async () => {
      others += 1;
    });
    events.install();
    await handle(mention());
    expect(others).toBe(1);
    expect((errors[0] as Error).message).toBe('at once');
  });

  it('refuses a registration it would not run as Bolt does (a pattern, or middleware before the listener)', () => {
    const { events } = setUp();
    const on = events.listeners.event as unknown as (...args: unknown[]) => void;
    expect(() => on(/^reaction_/, async () => {})).toThrow(/one event type by name, one function/);
    expect(() =>
      on(
        'app_mention',
        async () => {},
        async () => {},
      ),
    ).toThrow(/one event type by name, one function/);
    expect(() => on('message.im', async () => {})).toThrow(/register `message` and read its channel_type/);
  });

  it('refuses a listener registered after they were installed, which would never run', () => {
    const { events } = setUp();
    events.listeners.event('app_mention', async () => {});
    events.install();
    expect(() => events.listeners.event('reaction_added', async () => {})).toThrow(/would never run/);
  });
});
