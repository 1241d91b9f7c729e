import { describe, expect, it } from 'vitest';
import type { WorkspaceAgent } from '../../../src/core/agents/agent-service.ts';
import { chainPosition } from '../../../src/core/messaging/chain.ts';
import { HOP_LIMIT, mayMessage, rateLimited, refusalFor } from '../../../src/core/messaging/rules.ts';
import type { Message } from '../../../src/core/messaging/message.ts';
import { PERSON_AGENT_PERMISSIONS, type Agent, type AgentPermissions } from '../../../src/core/entities.ts';

const agent = (id: string, kind: Agent['kind'] = 'agent', owner = 'alice'): Agent => ({
  id,
  ownerId: `${owner}-id`,
  ownerHandle: owner,
  name: kind === 'person' ? owner : id,
  displayName: id,
  avatarUrl: null,
  roleLine: '',
  kind,
  hasToken: kind === 'agent',
  createdAt: new Date(0),
});
const entry = (a: Agent, p: Partial<AgentPermissions> = {}): WorkspaceAgent => ({
  agent: a,
  permissions: { ...PERSON_AGENT_PERMISSIONS, ...p },
  ownerRole: 'editor',
});

const builder = entry(agent('builder'));
const reviewer = entry(agent('reviewer', 'agent', 'bob'));
const bob = entry(agent('bob-person', 'person', 'bob'));

describe('who may message whom', () => {
  it('lets anyone message anyone by default', () => {
    expect(refusalFor(builder, reviewer, 0)).toBeNull();
    expect(mayMessage(builder, bob)).toBe(true);
  });

  it('refuses messages to oneself', () => {
    expect(refusalFor(builder, builder, 0)).toEqual({ rule: 'self', reason: 'You cannot send a message to yourself.' });
  });

  it('keeps a sender to its can_message list', () => {
    const limited = entry(builder.agent, { canMessage: ['someone-else'] });
    expect(refusalFor(limited, reviewer, 0)).toEqual({
      rule: 'can_message',
      reason:
        'Your can_message list in this workspace does not include bob/reviewer; ask your owner to add it, or message someone on the list.',
    });
    expect(refusalFor(entry(builder.agent, { canMessage: ['reviewer'] }), reviewer, 0)).toBeNull();
  });

  it('refuses recipients that may not receive', () => {
    expect(refusalFor(builder, entry(reviewer.agent, { receive: false }), 0)?.reason).toBe(
      'bob/reviewer does not have the receive permission in this workspace, so it cannot read messages; ask its owner to grant it.',
    );
  });

  it("keeps to a recipient's takes_messages_from list", () => {
    expect(refusalFor(builder, entry(reviewer.agent, { takesMessagesFrom: ['other'] }), 0)).toEqual({
      rule: 'takes_messages_from',
      reason:
        'bob/reviewer takes messages only from its allow-list (takes_messages_from), and you are not on it; ask its owner to add you.',
    });
    expect(refusalFor(builder, entry(reviewer.agent, { takesMessagesFrom: ['builder'] }), 0)).toBeNull();
  });

  it(`stops agent-to-agent messages past ${HOP_LIMIT} hops, but never messages to a person`, () => {
    expect(refusalFor(builder, reviewer, HOP_LIMIT)).toBeNull();
    expect(refusalFor(builder, reviewer, HOP_LIMIT + 1)).toMatchObject({ rule: 'hop_limit' });
    expect(refusalFor(builder, reviewer, HOP_LIMIT + 1)?.reason).toContain(`limit of ${HOP_LIMIT} hops`);
    expect(refusalFor(builder, bob, HOP_LIMIT + 5)).toBeNull();
  });

  it('says may_message is false without the send permission', () => {
    expect(mayMessage(entry(builder.agent, { send: false }), reviewer)).toBe(false);
  });

  it('words the rate limit refusal with the limit and when to retry', () => {
    const e = rateLimited({ max: 30, windowMs: 60_000 }, 30, 60_000);
    expect(e.code).toBe('RATE_LIMITED');
    expect(e.message).toBe(
      'You have sent 30 messages to this conversation in the last 60 seconds, the most the rate limit allows; wait 60 seconds before sending more there.',
    );
    expect(e.details).toEqual({ limit: 30, window_seconds: 60, retry_after_seconds: 60 });
  });
});

describe('chain positions', () => {
  const parent = { chainId: 'chain-1', hop: 2, askerPersonId: 'carol-id', askerIdentityId: null } as Message;

  it('starts a new chain for a person, on their own behalf', () => {
    expect(chainPosition({ sender: bob.agent, parent, newChainId: 'new' })).toEqual({
      chainId: 'new',
      hop: 0,
      askerPersonId: 'bob-id',
      askerIdentityId: null,
    });
  });

  it("continues the parent's chain one hop further, for the same asker", () => {
    expect(chainPosition({ sender: builder.agent, parent, newChainId: 'new' })).toEqual({
      chainId: 'chain-1',
      hop: 3,
      askerPersonId: 'carol-id',
      askerIdentityId: null,
    });
  });

  it("starts a chain on the owner's behalf when an agent answers nothing", () => {
    expect(chainPosition({ sender: builder.agent, parent: null, newChainId: 'new' })).toMatchObject({
      hop: 0,
      askerPersonId: 'alice-id',
    });
  });

  it("never gives a guest anyone's identity", () => {
    expect(
      chainPosition({ sender: bob.agent, parent: null, newChainId: 'new', asGuest: true, askerIdentityId: 'ext-1' }),
    ).toEqual({ chainId: 'new', hop: 0, askerPersonId: null, askerIdentityId: 'ext-1' });
  });
});
