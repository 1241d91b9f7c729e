// Who can see a conversation, and what that allows an agent to bring into it.
// An audience is everyone who reads the conversation: the asker in a DM,
// every member of a channel. Its level is the least access any of them holds
// in the workspace; someone who is not linked, or cannot reach the workspace,
// is a guest. Pure functions only.
import { notPermitted, type SwitchboardError } from '../errors.ts';
import type { WorkspaceRole } from '../entities.ts';

export type AudienceLevel = 'guest' | WorkspaceRole;
export const AUDIENCE_LEVELS: readonly AudienceLevel[] = ['guest', 'viewer', 'editor', 'owner'];
const RANK: Record<AudienceLevel, number> = { guest: 0, viewer: 1, editor: 2, owner: 3 };

/** How long private content an agent read counts against posting it somewhere wider. */
export const READ_WINDOW_MS = 10 * 60_000;

/** One person in an audience: their linked person (null when not linked) and their role in the workspace (null: no access). */
export interface AudienceMember {
  personId: string | null;
  role: WorkspaceRole | null;
}

export interface Audience {
  /** The least access every member holds. */
  level: AudienceLevel;
  /** How many people read the conversation. */
  members: number;
  /** How many of them have not linked their chat account (each counts as a guest). */
  unlinked: number;
  /** The linked members, to compare one audience with another. */
  personIds: string[];
  /** False when the member list could not be read; the level is then guest, to be safe. */
  known: boolean;
}

export const atLeastLevel = (l: AudienceLevel, wanted: AudienceLevel) => RANK[l] >= RANK[wanted];

/** The audience of these members. Nobody at all (an agents-only conversation) is the owner level: no person can be shown too much. */
export function audienceOf(members: AudienceMember[], known = true): Audience {
  if (!known)
    return {
      level: 'guest',
      members: members.length,
      unlinked: members.filter((m) => !m.personId).length,
      personIds: [],
      known: false,
    };
  let level: AudienceLevel = 'owner';
  const personIds = new Set<string>();
  let unlinked = 0;
  for (const m of members) {
    if (!m.personId) unlinked += 1;
    else personIds.add(m.personId);
    const l: AudienceLevel = m.personId && m.role ? m.role : 'guest';
    if (RANK[l] < RANK[level]) level = l;
  }
  return { level, members: members.length, unlinked, personIds: [...personIds], known: true };
}

/** The fields agents see on every inbox item. */
export const publicAudience = (a: Audience) => ({ level: a.level, members: a.members, unlinked: a.unlinked });

/**
 * Whether `target` reaches someone `source` does not: an unlinked member, a
 * member who is not in `source`, or a list nobody could read. What only
 * `source` may see must not be posted into `target`.
 */
export function isWider(target: Audience, source: Pick<Audience, 'personIds'>): boolean {
  if (!target.known || target.unlinked > 0) return true;
  const inSource = new Set(source.personIds);
  return target.personIds.some((p) => !inSource.has(p));
}

const people = (a: Audience) =>
  a.known
    ? `${a.members} ${a.members === 1 ? 'person' : 'people'}${a.unlinked ? `, ${a.unlinked} of them not linked` : ''}`
    : 'members Switchboard could not read';

/** Whether the human behind a message is a guest: a chat user whose account is not linked (or who cannot reach the workspace). */
export const isGuestAsker = (asker: { personId: string | null; identityId: string | null }) =>
  asker.personId === null && asker.identityId !== null;

/** Reading private content for a conversation whose audience includes someone who may not read it. */
export function readRefused(what: string, a: Audience): SwitchboardError {
  return notPermitted(
    `You may not read ${what} for this conversation: its audience (${people(a)}) includes people who cannot read it in this workspace, ` +
      'and an agent never shows anyone more than they could see themselves. Answer the person who asked in a DM instead.',
    { audience: publicAudience(a) },
  );
}

/** Posting into a conversation whose audience is wider than the content the agent took in. */
export function postRefused(sources: string[], a: Audience): SwitchboardError {
  const list = sources.slice(0, 3).join(', ') + (sources.length > 3 ? ` and ${sources.length - 3} more` : '');
  return notPermitted(
    `Not sent: you recently read ${list}, and this conversation's audience (${people(a)}) is wider than who may see that. ` +
      'Nothing private is posted where someone could not read it themselves; answer the person who asked in a DM instead, ' +
      `or write here only what everyone in it may see once what you read is older than ${READ_WINDOW_MS / 60_000} minutes.`,
    { audience: publicAudience(a), sources },
  );
}

/** Changing something on behalf of someone who may not change it themselves. */
export function changeRefused(
  what: string,
  asker: { handle: string | null; role: WorkspaceRole | null; guest: boolean },
): SwitchboardError {
  if (asker.guest) {
    return notPermitted(
      `You may not ${what} for this conversation: the person who asked has not linked their chat account, and nothing is changed on a guest's behalf. Ask them to link it (the app sends them a link), or have a linked person ask.`,
    );
  }
  const who = asker.handle ? `@${asker.handle}` : 'The person who asked';
  return notPermitted(
    `You may not ${what} for this conversation: ${who} ${asker.role ? `is only a ${asker.role} in this workspace` : 'cannot reach this workspace'}, and an agent never does more for someone than they could do themselves.`,
  );
}
