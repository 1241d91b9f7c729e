// The pure parts of email's addressing: a thread's key and stored address
// round-trip and refuse what no mail names; Message-IDs are read from headers
// as mail programs write them; our addresses are taken apart (plain and
// subaddress forms) and nothing else is taken for one; an answer goes to the
// thread's people, never to an agent's address; SMTP replies are classified.
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/core/delivery/failure.ts';
import { addressOf, isOurs, parseOurAddress } from '../../../src/surfaces/email/addresses.ts';
import { classifySmtpError, deliveryErrorOf } from '../../../src/surfaces/email/errors.ts';
import type { StoredMail } from '../../../src/surfaces/email/mail-repo.ts';
import { recipientsOf } from '../../../src/surfaces/email/outbound.ts';
import {
  decodeConversationKey,
  encodeConversationKey,
  isSentByUs,
  mailIdFor,
  mailIdOf,
  mailIdsIn,
  threadFromRef,
  threadRef,
} from '../../../src/surfaces/email/thread-id.ts';

const D = 'agents.test';

describe('thread ids', () => {
  it('round-trip a thread through its key and its stored address', () => {
    const t = { tenant: 'eng', root: 'CAF=abc+1@mail.example.com' };
    expect(decodeConversationKey(encodeConversationKey(t))).toBe(t.root);
    expect(threadFromRef(threadRef(t))).toEqual(t);
  });

  it('keep a very long root Message-ID as its hash, and refuse a thread no mail names', () => {
    const key = encodeConversationKey({ tenant: 'eng', root: `${'x'.repeat(300)}@example.com` });
    expect(key).toMatch(/^email:#[0-9a-f]{64}$/);
    expect(decodeConversationKey(key)).toMatch(/^#/);
    expect(() => encodeConversationKey({ tenant: 'eng', root: 'has space@x' })).toThrow(/not an email thread/);
    expect(() => encodeConversationKey({ tenant: 'Not A Slug', root: 'a@b' })).toThrow();
    expect(threadFromRef({ tenant: 'eng' })).toBeNull();
    expect(decodeConversationKey('teams:t:c')).toBeNull();
  });

  it('read Message-IDs as headers hold them, leaving out what is none', () => {
    expect(mailIdOf('  <abc@example.com> ')).toBe('abc@example.com');
    expect(mailIdOf('<a\u0000b@x>')).toBeNull();
    expect(mailIdOf('')).toBeNull();
    expect(mailIdsIn('<a@x>\r\n <b@x> junk <a@x>')).toEqual(['a@x', 'b@x']);
    expect(mailIdsIn(['<a@x>', '<c@x>'])).toEqual(['a@x', 'c@x']);
    expect(isSentByUs(mailIdFor('0b5b7c62-7a57-4f5e-9d1f-3c1f8c2f7a10', D), D)).toBe(true);
    expect(isSentByUs('sb.0b5b7c62-7a57-4f5e-9d1f-3c1f8c2f7a10@elsewhere.test', D)).toBe(false);
    // An approval's mails and account mails are Switchboard's too.
    expect(isSentByUs(mailIdFor('0b5b7c62-7a57-4f5e-9d1f-3c1f8c2f7a10', D, 'approval'), D)).toBe(true);
    expect(isSentByUs(`sb.approval.someone@${D}`, D)).toBe(false);
  });
});

describe('our addresses', () => {
  it('take apart the plain and the subaddress forms, case aside', () => {
    expect(parseOurAddress(`Reviewer@${D.toUpperCase()}`, D)).toEqual({ label: null, name: 'reviewer' });
    expect(parseOurAddress(`eng+reviewer@${D}`, D)).toEqual({ label: 'eng', name: 'reviewer' });
    expect(parseOurAddress(`eng+alice/builder@${D}`, D)).toEqual({ label: 'eng', name: 'alice/builder' });
    expect(addressOf('reviewer', 'eng', D)).toBe(`eng+reviewer@${D}`);
    expect(addressOf('reviewer', null, D)).toBe(`reviewer@${D}`);
  });

  it('take nothing else for one of ours', () => {
    for (const a of [
      'reviewer@elsewhere.test',
      `"quoted name"@${D}`,
      `a+b+c@${D}`,
      `+reviewer@${D}`,
      `eng+@${D}`,
      `reviewer@sub.${D}`,
      'no-at-sign',
    ])
      expect(parseOurAddress(a, D), a).toBeNull();
    expect(isOurs(`x@${D}`, D)).toBe(true);
    expect(isOurs(`x@mail.${D}`, D)).toBe(false);
  });
});

const mail = (direction: 'in' | 'out', parties: Partial<StoredMail['parties']>, mailId: string): StoredMail => ({
  workspaceId: 'w',
  mailId,
  messageId: null,
  rootMailId: 'root@x',
  direction,
  parties: { from: [], replyTo: [], to: [], cc: [], ...parties },
  references: [],
  subject: '',
  details: {},
  sentAt: null,
  createdAt: new Date(),
});
const a = (address: string) => ({ name: '', address });

describe('who an answer goes to', () => {
  it("is the thread's senders (their Reply-To when given), then everyone else; never an agent's address", () => {
    const thread = [
      mail('in', { from: [a('carol@example.com')], to: [a(`reviewer@${D}`)], cc: [a('dave@example.com')] }, '1@x'),
      mail('out', { from: [a(`reviewer@${D}`)], to: [a('carol@example.com')], cc: [a('dave@example.com')] }, '2@x'),
      mail(
        'in',
        { from: [a('dave@example.com')], replyTo: [a('team@example.com')], to: [a(`eng+builder@${D}`)] },
        '3@x',
      ),
    ];
    const r = recipientsOf(thread, D, 50);
    expect(r.to.map((x) => x.address)).toEqual(['team@example.com', 'carol@example.com']);
    expect(r.cc.map((x) => x.address)).toEqual(['dave@example.com']);
    expect(recipientsOf(thread, D, 2)).toMatchObject({ cc: [], dropped: 1 });
  });
});

describe('SMTP replies', () => {
  it("a 4xx or a lost connection is tried again; a 5xx is final with the server's reply", () => {
    expect(classifySmtpError({ responseCode: 451, response: '451 4.7.1 Greylisted' }).kind).toBe('transient');
    expect(classifySmtpError({ code: 'ECONNECTION', message: 'closed' }).kind).toBe('transient');
    const refused = classifySmtpError({ responseCode: 550, response: '550 5.1.1 no such user', code: 'EENVELOPE' });
    expect(refused).toMatchObject({ kind: 'permanent', code: 'SMTP 550' });
    expect(refused.reason).toContain('no such user');
    const auth = classifySmtpError({ responseCode: 535, response: '535 bad credentials', code: 'EAUTH' });
    expect(auth.reason).toMatch(/EMAIL_SMTP_URL/);
    expect(deliveryErrorOf(new Error('x'))).toBeInstanceOf(DeliveryError);
  });
});
