// Reading what people write to the bot in Teams: the agents named and
// one-word commands (mentions and HTML: format-in.test.ts).
import { describe, expect, it } from 'vitest';
import { teamsToMarkdown } from '../../../src/surfaces/teams/format/in.ts';
import { commandOf, namedAgents } from '../../../src/surfaces/teams/text.ts';

describe('reading Teams messages', () => {
  it('names the agent after a leading ask or tell, then every @name, once each', () => {
    expect(namedAgents('ask reviewer to check PR 12')).toEqual(['reviewer']);
    expect(namedAgents('please tell alice/builder to ship; cc @reviewer and @alice/builder.')).toEqual([
      'alice/builder',
      'reviewer',
    ]);
    expect(namedAgents('@Reviewer, look at this')).toEqual(['reviewer']);
    expect(namedAgents('mail bob@example.com about it')).toEqual([]);
    expect(namedAgents('what do you think?')).toEqual([]);
  });

  it('reads the ask or tell after the quote a Teams reply starts with', () => {
    const quote =
      '<blockquote itemscope="" itemtype="http://schema.skype.com/Reply" itemid="1760000000123"><strong itemprop="mri" itemid="29:bob">Bob Okafor</strong>' +
      '<span itemprop="time" itemid="1760000000123"></span><p itemprop="preview">ask builder to ship it</p></blockquote>';
    const bot = { type: 'mention', text: '<at>Switchboard</at>', mentioned: { id: '28:bot', name: 'Switchboard' } };
    const read = teamsToMarkdown(
      {
        text: 'x',
        attachments: [
          { contentType: 'text/html', content: `${quote}<p><at>Switchboard</at> ask reviewer to look at this</p>` },
        ],
        entities: [bot],
      },
      '28:bot',
    );
    expect(read).toMatchObject({ names: ['reviewer'], mentionsBot: true });
    expect(namedAgents('> an earlier message\n>\n> more of it\n\ntell @alice/builder to ship')).toEqual([
      'alice/builder',
    ]);
  });

  it('knows the one-word commands', () => {
    expect(commandOf(' Help ')).toBe('help');
    expect(commandOf('agents')).toBe('agents');
    expect(commandOf('link!')).toBe('link');
    expect(commandOf('unlink')).toBe('unlink');
    expect(commandOf('help me with PR 12')).toBeNull();
  });
});
