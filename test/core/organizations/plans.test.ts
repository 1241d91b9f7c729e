import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../../src/core/errors.ts';
import {
  assertAgentAllowed,
  assertMessagesAllowed,
  assertWorkspaceAllowed,
  historyCutoff,
  monthStart,
  nextReset,
  planLimits,
  usageMonth,
} from '../../../src/core/organizations/plans.ts';

const now = new Date('2026-11-30T23:59:59Z');
const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    return e as SwitchboardError;
  }
  throw new Error('expected a refusal');
};

describe('Free plan', () => {
  const free = planLimits('free');

  it('allows the 300th message of the month and refuses the 301st', () => {
    expect(() => assertMessagesAllowed(free, 299, 1, now)).not.toThrow();
    const e = refusal(() => assertMessagesAllowed(free, 300, 1, now));
    expect(e.code).toBe('PLAN_LIMIT');
    expect(e.message).toContain('300 of the 300 messages');
    expect(e.message).toContain('2026-12-01');
    expect(e.details).toMatchObject({ limit: 300, used: 300, resets_at: '2026-12-01T00:00:00.000Z' });
  });

  it('counts a message to several recipients once per recipient', () => {
    expect(() => assertMessagesAllowed(free, 297, 3, now)).not.toThrow();
    expect(refusal(() => assertMessagesAllowed(free, 298, 3, now)).details).toMatchObject({ adding: 3 });
  });

  it('allows the 5th agent and refuses the 6th', () => {
    expect(() => assertAgentAllowed(free, 4)).not.toThrow();
    const e = refusal(() => assertAgentAllowed(free, 5));
    expect(e.code).toBe('PLAN_LIMIT');
    expect(e.message).toContain('allows 5');
  });

  it('allows the 1st workspace and refuses the 2nd', () => {
    expect(() => assertWorkspaceAllowed(free, 0)).not.toThrow();
    const e = refusal(() => assertWorkspaceAllowed(free, 1));
    expect(e.code).toBe('PLAN_LIMIT');
    expect(e.message).toContain('allows 1');
  });

  it('keeps 7 days of history', () => {
    expect(historyCutoff(free, now).toISOString()).toBe('2026-11-23T23:59:59.000Z');
  });
});

describe('Team plan', () => {
  it('licenses messages and allows one agent per 100 of them', () => {
    const team = planLimits('team', 20_000);
    expect(team.messagesPerMonth).toBe(20_000);
    expect(team.agents).toBe(200);
    expect(() => assertMessagesAllowed(team, 19_999, 1, now)).not.toThrow();
    expect(() => assertMessagesAllowed(team, 20_000, 1, now)).toThrow(SwitchboardError);
  });

  it('allows at least 50 agents however few messages are licensed', () => {
    expect(planLimits('team', 1_000).agents).toBe(50);
    expect(planLimits('team', 5_000).agents).toBe(50);
    expect(planLimits('team', 5_100).agents).toBe(51);
  });

  it('has unlimited workspaces and 90 days of history', () => {
    const team = planLimits('team', 1_000);
    expect(() => assertWorkspaceAllowed(team, 10_000)).not.toThrow();
    expect(historyCutoff(team, now).toISOString()).toBe('2026-09-01T23:59:59.000Z');
  });
});

describe('the monthly count', () => {
  it('resets on the 1st of the month, UTC', () => {
    expect(monthStart(new Date('2026-12-01T00:00:00Z')).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(usageMonth(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(usageMonth(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12');
    expect(nextReset(new Date('2026-12-31T12:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
