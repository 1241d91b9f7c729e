// Which messages carry Teams' AI label, citations and feedback buttons, and
// how an agent's Markdown sources become citations (agentMessage, pure).
import { describe, expect, it } from 'vitest';
import { agentMessage } from '../../../src/surfaces/teams/cards.ts';
import type { Agent } from '../../../src/core/entities.ts';

const agent = {
  id: 'a1',
  name: 'reviewer',
  ownerHandle: 'alice',
  displayName: 'Reviewer',
  kind: 'agent',
  avatarUrl: null,
} as unknown as Agent;
const person = { ...agent, name: 'carol', ownerHandle: 'carol', displayName: 'Carol', kind: 'person' } as Agent;

const aiEntity = (a: ReturnType<typeof agentMessage>) =>
  (a.entities as Array<Record<string, unknown>> | undefined)?.find((e) => e.type === 'https://schema.org/Message');

describe("Teams' marks of an AI-written message", () => {
  it('cites the numbered sources an agent defines and uses, and leaves other brackets as written', () => {
    const a = agentMessage(
      agent,
      'Restart the worker [1], then check [2] and [3].\n\n' +
        '[1]: https://wiki.test/runbooks/worker "Worker runbook"\n' +
        '[3]: ftp://files.test/old\n' +
        '[x]: https://wiki.test/x',
    );
    expect(a.text).toBe(
      '**Reviewer** (alice/reviewer)\n\nRestart the worker [1], then check \\[2] and [3].\n\n[3]: ftp://files.test/old\n\n[x]: https://wiki.test/x',
    );
    expect(aiEntity(a)).toMatchObject({
      additionalType: ['AIGeneratedContent'],
      citation: [
        {
          '@type': 'Claim',
          position: 1,
          appearance: { '@type': 'DigitalDocument', name: 'Worker runbook', url: 'https://wiki.test/runbooks/worker' },
        },
      ],
    });
    expect(a.channelData).toEqual({ feedbackLoopEnabled: true, feedbackLoop: { type: 'default' } });
  });

  it('labels a card too, its sources listed in the card as links rather than citations', () => {
    const a = agentMessage(agent, '# Report\n\nSee [1].\n\n[1]: https://wiki.test/r "R"');
    expect(a.attachments).toHaveLength(1);
    expect(aiEntity(a)).toEqual({
      type: 'https://schema.org/Message',
      '@type': 'Message',
      '@context': 'https://schema.org',
      additionalType: ['AIGeneratedContent'],
    });
    const card = JSON.stringify(a.attachments);
    expect(card).toContain('"text":"See [1]."');
    expect(card).toContain('https://wiki.test/r');
  });

  it("marks neither a person's message nor one mirrored from a bridged channel", () => {
    for (const a of [
      agentMessage(person, 'Hello [1].\n\n[1]: https://x.test'),
      agentMessage(agent, 'Hi', undefined, 'Slack'),
    ]) {
      expect(aiEntity(a)).toBeUndefined();
      expect(a.channelData).toBeUndefined();
    }
    expect(agentMessage(person, 'Hello [1].\n\n[1]: https://x.test').text).toContain('[1]: https://x.test');
  });
});
