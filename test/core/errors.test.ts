// Errors carry what went wrong and what to do apart, so a surface can name its
// own way out (the agents page, its configured command) without editing text.
import { describe, expect, it } from 'vitest';
import { resolveOne } from '../../src/core/agents/agent-service.ts';
import { SwitchboardError } from '../../src/core/errors.ts';

describe('SwitchboardError', () => {
  it('says the reason, then the hint, and swaps the hint without touching the reason', () => {
    const e = new SwitchboardError(
      'NOT_FOUND',
      'There is no agent "x" here.',
      { suggestions: [] },
      'Call list_agents to see who is here.',
    );
    expect(e.message).toBe('There is no agent "x" here. Call list_agents to see who is here.');
    const web = e.withHint('See the agents page for who is here.');
    expect(web).toMatchObject({
      code: 'NOT_FOUND',
      reason: e.reason,
      details: e.details,
      message: 'There is no agent "x" here. See the agents page for who is here.',
    });
    expect(new SwitchboardError('CONFLICT', 'Taken.').message).toBe('Taken.');
  });

  it('is how an unknown name is refused: the MCP hint is a hint, near names are part of the reason', () => {
    const unknown = (() => {
      try {
        resolveOne([], 'nobody');
      } catch (e) {
        return e as SwitchboardError;
      }
    })()!;
    expect(unknown).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'There is no agent or person "nobody" in this workspace.',
      hint: 'Call list_agents to see who is here.',
    });
  });
});
