// Pure pieces of the Slack adapter: reading what people write, and the
// conversation key of a Slack thread (a validating encode/decode pair).
import { describe, expect, it } from 'vitest';
import { namedAgents, splitCommand, unescapeSlack, withoutBotMention } from '../../../src/adapters/slack/mentions.ts';
import { decodeThreadKey, encodeThreadKey, threadFromRef, threadRef, type SlackThread } from '../../../src/adapters/slack/thread-key.ts';

describe('reading Slack message text', () => {
  it('finds @name and @owner/name in order, once each, lowercased', () => {
    expect(namedAgents('ask @Reviewer and @bob/Tester, then @reviewer again.')).toEqual(['reviewer', 'bob/tester']);
    expect(namedAgents('(@builder) look; @qa.')).toEqual(['builder', 'qa']);
  });

  it('does not take Slack user mentions, @here or e-mail addresses for agent names', () => {
    expect(namedAgents('<@U0CAROL01> <!here> mail bob@example.com or @here, <#C123|general>')).toEqual([]);
  });

  it('removes the app\'s own mention and undoes Slack\'s escaping', () => {
    expect(withoutBotMention('<@U0BOT> ask @reviewer: is 1 &lt; 2 &amp;&amp; 3 &gt; 2?', 'U0BOT')).toBe('ask @reviewer: is 1 < 2 && 3 > 2?');
    expect(withoutBotMention('<@U0BOT>', 'U0BOT')).toBe('');
    expect(unescapeSlack('&amp;lt;')).toBe('&lt;');
  });

  it('splits a slash command into its first word and the rest', () => {
    expect(splitCommand('  Reviewer   look at #418 ')).toEqual({ head: 'reviewer', rest: 'look at #418' });
    expect(splitCommand('agents')).toEqual({ head: 'agents', rest: '' });
    expect(splitCommand('')).toEqual({ head: '', rest: '' });
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

  it('refuse what Slack never issues, and keys that are not Slack\'s', () => {
    expect(() => encodeThreadKey({ team: 'T1', channel: 'C1:evil' })).toThrow();
    expect(() => encodeThreadKey({ team: 'T1', channel: 'C1', thread_ts: 'now' })).toThrow();
    for (const key of ['dm:a,b', 'slack:T1', 'slack:T1:C1:notats', 'slack:T1:C1:1.2:extra', 'slack:t1:C1']) expect(decodeThreadKey(key)).toBeNull();
    expect(threadFromRef(null)).toBeNull();
    expect(threadFromRef({ team: 'T1' })).toBeNull();
  });
});
