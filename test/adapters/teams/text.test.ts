// Reading what people write to the bot in Teams: the agents named and
// one-word commands (mentions and HTML: format-in.test.ts).
import { describe, expect, it } from 'vitest';
import { commandOf, namedAgents } from '../../../src/adapters/teams/text.ts';

describe('reading Teams messages', () => {
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
