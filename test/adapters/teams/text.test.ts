// Reading what people write to the bot in Teams: its own mention, others'
// mentions, entities, the agents named, and one-word commands.
import { describe, expect, it } from 'vitest';
import { commandOf, namedAgents, withoutBotMention } from '../../../src/adapters/teams/text.ts';

const bot = { type: 'mention', text: '<at>Switchboard</at>', mentioned: { id: '28:bot', name: 'Switchboard' } };

describe('reading Teams messages', () => {
  it('drops the bot\'s own mention, keeps other people\'s as names, and decodes entities', () => {
    const text = '<at>Switchboard</at> ask reviewer to ping <at>Bob Okafor</at> about A&amp;B&nbsp;&lt;now&gt;';
    expect(withoutBotMention(text, [bot], '28:bot')).toBe('ask reviewer to ping Bob Okafor about A&B <now>');
  });

  it('leaves a mention of someone else alone when the bot is not the one mentioned', () => {
    expect(withoutBotMention('<at>Switchboard</at> hi', [{ ...bot, mentioned: { id: '28:other' } }], '28:bot')).toBe('Switchboard hi');
  });

  it('names the agent after a leading ask or tell, then every @name, once each', () => {
    expect(namedAgents('ask reviewer to check PR 12')).toEqual(['reviewer']);
    expect(namedAgents('please tell alice/builder to ship; cc @reviewer and @alice/builder.')).toEqual(['alice/builder', 'reviewer']);
    expect(namedAgents('@Reviewer, look at this')).toEqual(['reviewer']);
    expect(namedAgents('mail bob@example.com about it')).toEqual([]);
    expect(namedAgents('what do you think?')).toEqual([]);
  });

  it('knows the one-word commands', () => {
    expect(commandOf(' Help ')).toBe('help');
    expect(commandOf('agents')).toBe('agents');
    expect(commandOf('link!')).toBe('link');
    expect(commandOf('unlink')).toBe('unlink');
    expect(commandOf('help me with PR 12')).toBeNull();
  });
});
