// The pure rules of linking and audiences: nonce states and binding, the
// audience level as the least access of its members, and when one audience
// is wider than another.
import { describe, expect, it } from 'vitest';
import { audienceOf, isGuestAsker, isWider, postRefused, readRefused } from '../../../src/core/linking/audience.ts';
import {
  boundTo,
  isWellFormedNonce,
  LINK_TTL_MS,
  linkRefusal,
  linkState,
  parseSubject,
} from '../../../src/core/linking/link-rules.ts';
import { newNonce } from '../../../src/core/agents/tokens.ts';
import { slackLinkWording } from '../../../src/surfaces/slack/linking.ts';
import { TEAMS_LINK_WORDING } from '../../../src/surfaces/teams/linking.ts';

const now = new Date('2026-03-01T12:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe('link nonces', () => {
  it('are made of at least 128 random bits, and anything else is refused before a lookup', () => {
    const nonce = newNonce();
    expect(Buffer.from(nonce, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(isWellFormedNonce(nonce)).toBe(true);
    expect(newNonce()).not.toBe(nonce);
    for (const bad of ['', 'short', `${nonce}x`, `${nonce.slice(0, 42)}/`, '../../etc/passwd'])
      expect(isWellFormedNonce(bad)).toBe(false);
  });

  it('are valid for 15 minutes and once', () => {
    expect(LINK_TTL_MS).toBe(15 * 60_000);
    expect(linkState({ expiresAt: at(1), usedAt: null }, now)).toBe('valid');
    expect(linkState({ expiresAt: at(0), usedAt: null }, now)).toBe('expired');
    expect(linkState({ expiresAt: at(60_000), usedAt: at(-1) }, now)).toBe('used');
    expect(linkState(null, now)).toBe('unknown');
  });

  it('are bound to one chat user: surface, tenant and user must all match', () => {
    const subject = parseSubject({
      surface: 'slack',
      tenantId: 'T1',
      externalUserId: 'U1',
      identityId: 'id-1',
      tenantName: 'Acme',
    })!;
    expect(boundTo(subject, { surface: 'slack', tenantId: 'T1', externalUserId: 'U1' })).toBe(true);
    expect(boundTo(subject, { surface: 'slack', tenantId: 'T2', externalUserId: 'U1' })).toBe(false);
    expect(boundTo(subject, { surface: 'teams', tenantId: 'T1', externalUserId: 'U1' })).toBe(false);
    expect(boundTo(subject, { surface: 'slack', tenantId: 'T1', externalUserId: 'U2' })).toBe(false);
    expect(parseSubject({ surface: '', tenantId: 'T1', externalUserId: 'U1', identityId: 'x' })).toBeNull();
    expect(parseSubject({ surface: 'slack', tenantId: 'T1', externalUserId: 'U1' })).toBeNull();
    expect(parseSubject(null)).toBeNull();
  });

  it('say why they cannot be used and how to get a new one', () => {
    // Each surface says how to get a new link its own way (here Slack's, with its configured command).
    const slack = slackLinkWording('/sb');
    expect(linkRefusal('expired', slack)).toMatch(/expired.*15 minutes.*`\/sb link` in Slack/);
    expect(linkRefusal('used', slack)).toMatch(/already used.*works once.*Send me a new link/);
    expect(linkRefusal('used', TEAMS_LINK_WORDING)).toMatch(/already used.*personal chat in Teams/);
    expect(linkRefusal('unknown', null)).toMatch(
      /not a link Switchboard sent.*Ask the Switchboard app in your chat for a new one/,
    );
  });
});

describe('audiences', () => {
  const owner = { personId: 'a', role: 'owner' as const };
  const editor = { personId: 'b', role: 'editor' as const };
  const viewer = { personId: 'c', role: 'viewer' as const };

  it('are at the least access any member holds', () => {
    expect(audienceOf([owner]).level).toBe('owner');
    expect(audienceOf([owner, editor]).level).toBe('editor');
    expect(audienceOf([owner, editor, viewer])).toMatchObject({ level: 'viewer', members: 3, unlinked: 0 });
  });

  it('count an unlinked member, or a linked one who cannot reach the workspace, as a guest', () => {
    expect(audienceOf([owner, { personId: null, role: null }])).toMatchObject({
      level: 'guest',
      members: 2,
      unlinked: 1,
    });
    expect(audienceOf([owner, { personId: 'd', role: null }])).toMatchObject({
      level: 'guest',
      members: 2,
      unlinked: 0,
    });
  });

  it('are guests when the member list could not be read', () => {
    expect(audienceOf([owner], false)).toMatchObject({ level: 'guest', known: false });
  });

  it('are wider than another when they reach someone it does not', () => {
    const team = audienceOf([owner, editor]);
    expect(isWider(audienceOf([owner]), team)).toBe(false);
    expect(isWider(audienceOf([owner, editor]), team)).toBe(false);
    expect(isWider(audienceOf([owner, viewer]), team)).toBe(true);
    expect(isWider(audienceOf([owner, { personId: null, role: null }]), team)).toBe(true);
    expect(isWider(audienceOf([], false), team)).toBe(true);
  });

  it('make refusals that name the audience, suggest a DM and say in minutes how long a read counts', () => {
    const a = audienceOf([owner, { personId: null, role: null }]);
    expect(readRefused('SPEC-1', a).message).toMatch(/SPEC-1.*2 people, 1 of them not linked.*in a DM instead/);
    expect(postRefused(['SPEC-1', '#secret'], a).message).toMatch(
      /read SPEC-1, #secret.*in a DM instead.*older than 10 minutes\.$/,
    );
    expect(readRefused('SPEC-1', a).code).toBe('NOT_PERMITTED');
  });

  it('tell a guest asker (an unlinked chat user) from a person and from Switchboard itself', () => {
    expect(isGuestAsker({ personId: null, identityId: 'i' })).toBe(true);
    expect(isGuestAsker({ personId: 'p', identityId: 'i' })).toBe(false);
    expect(isGuestAsker({ personId: null, identityId: null })).toBe(false);
  });
});
