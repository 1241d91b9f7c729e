// Teams conversation addresses: the key and externalRef round-trip, what is
// refused, and the deep links kept on linked conversations.
import { describe, expect, it } from 'vitest';
import {
  addressFromRef,
  addressRef,
  decodeConversationKey,
  encodeConversationKey,
  messageLink,
  paceKey,
  rootOf,
  type TeamsAddress,
} from '../../../src/surfaces/teams/thread-id.ts';
import { TEAMS_DEFAULTS, personalConversationId, threadConversationId } from '../../support/teams/defaults.ts';

const tenant = TEAMS_DEFAULTS.tenantId;
const serviceUrl = 'https://smba.trafficmanager.net/emea/';
const thread: TeamsAddress = {
  tenant,
  conversation: threadConversationId(TEAMS_DEFAULTS.channelId, '1760000000001'),
  type: 'channel',
  serviceUrl,
  channel: TEAMS_DEFAULTS.channelId,
  root: '1760000000001',
};
const group: TeamsAddress = { tenant, conversation: TEAMS_DEFAULTS.groupChatId, type: 'groupChat', serviceUrl };
const personal: TeamsAddress = {
  tenant,
  conversation: personalConversationId(TEAMS_DEFAULTS.users.alice.id, TEAMS_DEFAULTS.appId),
  type: 'personal',
  serviceUrl,
};

describe('Teams conversation addresses', () => {
  it.each([
    ['a channel reply chain', thread],
    ['a group chat', group],
    ['a personal chat', personal],
  ])('round-trips %s through its key and externalRef', (_n, a) => {
    expect(decodeConversationKey(encodeConversationKey(a))).toEqual({ tenant: a.tenant, conversation: a.conversation });
    expect(addressFromRef(addressRef(a))).toEqual(a);
  });

  it('refuses what Teams never sends, and keys of other surfaces', () => {
    expect(() => encodeConversationKey({ ...group, tenant: '' })).toThrow(/not a Teams conversation address/);
    expect(() => encodeConversationKey({ ...group, conversation: 'has space' })).toThrow();
    expect(decodeConversationKey('slack:T1:C1:1.2')).toBeNull();
    expect(addressFromRef({ team: 'T1', channel: 'C1' })).toBeNull();
    expect(addressFromRef(null)).toBeNull();
  });

  it('finds the reply chain root and paces by channel', () => {
    expect(rootOf(thread.conversation)).toBe('1760000000001');
    expect(rootOf(group.conversation)).toBeUndefined();
    expect(paceKey(thread)).toBe(TEAMS_DEFAULTS.channelId);
    expect(paceKey(group)).toBe(group.conversation);
  });

  it('links to a message in its reply chain, or in a group chat; personal chats have no link', () => {
    const link = new URL(messageLink(thread, '1760000000009')!);
    expect(link.origin + link.pathname).toBe(
      `https://teams.microsoft.com/l/message/${encodeURIComponent(TEAMS_DEFAULTS.channelId)}/1760000000009`,
    );
    expect(Object.fromEntries(link.searchParams)).toEqual({
      tenantId: tenant,
      parentMessageId: '1760000000001',
      createdTime: '1760000000009',
    });
    expect(messageLink(group, '1760000000010')).toContain(
      `/l/message/${encodeURIComponent(group.conversation)}/1760000000010?`,
    );
    expect(messageLink(personal, '1760000000011')).toBeNull();
    expect(messageLink(thread, 'not-an-id')).toBeNull();
  });
});
