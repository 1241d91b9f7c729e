import { planLimit } from '../errors.ts';

export type PlanName = 'free' | 'team';

export interface Plan {
  name: PlanName;
  /** Messages an organization may send in one calendar month (UTC), counted per recipient. */
  messagesPerMonth: number;
  /** Agents with a valid token that may be in the organization at once. */
  agents: number;
  /** Workspaces the organization may have; Infinity for no limit. */
  workspaces: number;
  /** Days of message history kept before messages are deleted for good. */
  historyDays: number;
}

const FREE_MESSAGES = 300;
const TEAM_MIN_AGENTS = 50;

/** The limits of a plan; Team's follow the licensed message count. */
export function planLimits(name: PlanName, licensedMessages = 0): Plan {
  if (name === 'free') {
    return { name, messagesPerMonth: FREE_MESSAGES, agents: 5, workspaces: 1, historyDays: 7 };
  }
  return {
    name,
    messagesPerMonth: licensedMessages,
    agents: Math.max(TEAM_MIN_AGENTS, Math.floor(licensedMessages / 100)),
    workspaces: Number.POSITIVE_INFINITY,
    historyDays: 90,
  };
}

/** First instant of the month containing `now`, in UTC. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** When the monthly message count resets: the 1st of the next month, 00:00 UTC. */
export function nextReset(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** The key monthly usage is stored under, e.g. `2026-11`. */
export function usageMonth(now: Date): string {
  return monthStart(now).toISOString().slice(0, 7);
}

/** Oldest message time still kept under the plan. */
export function historyCutoff(plan: Plan, now: Date): Date {
  return new Date(now.getTime() - plan.historyDays * 86_400_000);
}

/**
 * Refuses a send that would take the month's count past the plan. A message to
 * several recipients counts once per recipient, so `recipients` is what it adds.
 */
export function assertMessagesAllowed(plan: Plan, usedThisMonth: number, recipients: number, now: Date): void {
  if (usedThisMonth + recipients <= plan.messagesPerMonth) return;
  const resets = nextReset(now).toISOString();
  throw planLimit(
    `This organization has used ${usedThisMonth} of the ${plan.messagesPerMonth} messages its ${plan.name} plan allows this month, ` +
      `and this message would count ${recipients} more; the count resets on ${resets.slice(0, 10)} (UTC). Ask an organization admin to raise the plan.`,
    { limit: plan.messagesPerMonth, used: usedThisMonth, adding: recipients, resets_at: resets },
  );
}

/** Refuses an agent that would take the organization past its agent allowance. */
export function assertAgentAllowed(plan: Plan, agentsNow: number): void {
  if (agentsNow + 1 <= plan.agents) return;
  throw planLimit(
    `This organization already has ${agentsNow} agents and its ${plan.name} plan allows ${plan.agents}; ` +
      `rotate out an unused agent or move to the Team plan.`,
    { limit: plan.agents, used: agentsNow },
  );
}

/** Refuses a workspace that would take the organization past its plan. */
export function assertWorkspaceAllowed(plan: Plan, workspacesNow: number): void {
  if (workspacesNow + 1 <= plan.workspaces) return;
  throw planLimit(
    `This organization already has ${workspacesNow} workspace${workspacesNow === 1 ? '' : 's'} and its ${plan.name} plan allows ${plan.workspaces}; ` +
      `move to the Team plan for unlimited workspaces.`,
    { limit: plan.workspaces, used: workspacesNow },
  );
}
