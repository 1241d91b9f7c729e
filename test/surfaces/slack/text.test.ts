// Pure pieces of the Slack adapter: reading slash commands, and the
// conversation key of a Slack thread (a validating encode/decode pair).
import { describe, expect, it } from 'vitest';
import { splitCommand, unescapeSlack } from '../../../src/surfaces/slack/command-text.ts';
import {
  decodeThreadKey,
  encodeThreadKey,
  threadFromRef,
  threadRef,
  type SlackThread,
} from '../../../src/surfaces/slack/thread-id.ts';

describe('reading Slack slash commands', () => {
  it("undoes Slack's escaping once", () => {
    expect(unescapeSlack('1 &lt; 2 &amp;&amp; &amp;lt;')).toBe('1 < 2 && &lt;');
  });

  it('splits a slash command into its first word and the rest', () => {
    expect(splitCommand('  Reviewer   look at #418 ')).toEqual({ head: 'reviewer', rest: 'look at #418' });
    expect(splitCommand('agents')).toEqual({ head: 'agents', rest: '' });
    expect(splitCommand('')).toEqual({ head: '', rest: '' });
    // The rest stays as Slack sent it, for the message reader to convert.
    expect(splitCommand('reviewer is 1 &lt; 2?')).toEqual({ head: 'reviewer', rest: 'is 1 &lt; 2?' });
  });
});

describe('Slack thread keys', () => {
  const cases: SlackThread[] = [
    { team: 'T0SWBOARD', channel: 'C0GENERAL', thread_ts: '1710000000.000100' },
    { team: 'T0SWBOARD', channel: 'D0CAROL01' },
  ];

  it.each(cases)('round-trip through the key and the external ref: %j', (thread) => {
    expect(decodeThreadKey(encodeThreadKey(thread))).toEqual(thread);
    expect(threadFromRef(threadRef(thread))).toEqual(thread);
  });

  it("refuse what Slack never issues, and keys that are not Slack's", () => {
    expect(() => encodeThreadKey({ team: 'T1', channel: 'C1:evil' })).toThrow();
    expect(() => encodeThreadKey({ team: 'T1', channel: 'C1', thread_ts: 'now' })).toThrow();
    for (const key of ['dm:a,b', 'slack:T1', 'slack:T1:C1:notats', 'slack:T1:C1:1.2:extra', 'slack:t1:C1'])
      expect(decodeThreadKey(key)).toBeNull();
    expect(threadFromRef(null)).toBeNull();
    expect(threadFromRef({ team: 'T1' })).toBeNull();
  });
});
